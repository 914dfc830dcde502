/** Debian's Chromium for the report tests: a headless profile, and a report opened until its charts are drawn. */
import { chromium, type BrowserContext, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

export function launchChromium(profile: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"],
    viewport: { width: 1280, height: 900 },
  });
}

/** The report at `html` in a new tab, once every chart is drawn (or failed); `errors`: what the page logged. */
export async function openReport(
  context: BrowserContext,
  html: string,
  timeout = 30_000,
): Promise<{ page: Page; errors: string[]; requests: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  const requests: string[] = [];
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("request", (r) => requests.push(r.url()));
  await page.goto(`file://${html}`);
  await page.waitForFunction(
    `[...document.querySelectorAll("figure.chart")].every((f) => f.classList.contains("rendered") || f.classList.contains("failed"))`,
    null,
    { timeout },
  );
  return { page, errors, requests };
}
