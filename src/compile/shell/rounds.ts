/**
 * A workload in rounds in the script: per target, a bash function that runs the workload's cases there once
 * per round (the repetition numbered as the round) and judges the tracked case's figure after each round
 * with rounds.sh's bs_rounds_steady — the loop of benchspec run (run/rounds.ts), with its messages.
 */
import type { Case, TargetRounds } from "../../plan/types.js";
import type { ShellScriptWriter } from "../../emit/writer.js";
import { shQuote } from "../../emit/writer.js";

/** The name of the rounds function of the loop whose first case is `first`. */
export const roundsFunction = (first: Case) => `bs_rounds_${first.index}`;

/**
 * `select(c)`: the bs_case_select line that makes `c` the current case; `target`: the script's functions
 * of the loop's target (bs_target_N). The cases are the workload's on that target, in matrix order.
 */
export function writeRounds(
  w: ShellScriptWriter,
  loop: TargetRounds,
  cases: readonly Case[],
  select: (c: Case) => string,
  target: string,
): void {
  const { window, excursion, slope, max, track } = loop;
  const name = `workload ${cases[0]!.workload} on ${loop.target}`;
  w.line();
  w.comment(
    `${name}: rounds until ${track.case}'s ${track.metric} is steady over ${window} rounds (excursion ${excursion} %, slope ${slope} %), at most ${max}`,
  );
  w.block(`${roundsFunction(cases[0]!)}() {`, () => {
    w.line("local round value='' outcome=not values=()");
    w.block(
      `for ((round = 1; round <= ${max}; round++)); do`,
      () => {
        w.line(`bs_log ${shQuote(`${name}: round `)}"$round"${shQuote(` (at most ${max})`)}`);
        for (const c of cases) {
          w.line(select(c));
          w.line(`if ((round == 1)); then bs_case_open ${c.params.warmup}; fi`);
          w.line('bs_rep "$round" false');
          if (c.id === track.case) w.line(`bs_rounds_value value ${track.metric}`);
        }
        w.block(
          "if [[ -z $value ]]; then",
          () => {
            w.line(
              `bs_log ${shQuote(`${name}: rounds stopped in round `)}"$round"${shQuote(`: the tracked case ${track.case} failed`)}`,
            );
            w.line("outcome=stopped");
            w.line("break");
          },
          "fi",
        );
        w.line('values+=("$value")');
        w.block(
          `if bs_rounds_steady ${window} ${excursion} ${slope} "\${values[@]}"; then`,
          () => {
            w.line("outcome=steady");
            w.line("break");
          },
          "fi",
        );
      },
      "done",
    );
    w.block(
      "case $outcome in",
      () => {
        w.line(
          `steady) bs_log ${shQuote(`${name}: steady state reached in round `)}"$round (window: rounds $((round - ${window - 1}))–$round)" ;;`,
        );
        // The plan makes max ≥ window: rounds that end at max always have a last window.
        w.line(
          `not) bs_log ${shQuote(`${name}: steady state not reached in ${max} rounds (window: rounds ${max - window + 1}–${max})`)} ;;`,
        );
      },
      "esac",
    );
    w.line(`bs_rounds_close ${target} ${cases.map((c) => `${c.index} ${shQuote(c.id)}`).join(" ")}`);
  });
}
