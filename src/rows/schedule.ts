/**
 * An open loop's schedule in a row (`rate`): the rate asked, the rate the client started operations at,
 * and how late they started — and the one rule that says the client fell behind.
 */

/**
 * The client kept the schedule when it started its operations at no less than this share of the rate their
 * due instants make (Poisson instants vary around the rate asked: 40 of them, by ±16 %).
 */
export const SCHEDULE_MIN_SHARE = 0.95;
export const BEHIND_SCHEDULE_RULE = `started at below ${SCHEDULE_MIN_SHARE * 100} % of the rate they were due at`;

export interface RowSchedule {
  /** Operations per second asked (the mean rate of Poisson arrivals). */
  rate: number;
  /** The rate the operations were due at: (operations − 1) ÷ (last due − first due). */
  scheduled: number;
  /**
   * The rate they started at: `scheduled` ÷ the least-squares slope of the k-th start on the k-th due
   * instant (the pace of the starts against the schedule's, however late each one was).
   */
  achieved: number;
  /** Seconds each operation started after it was due (timer slack, or no worker free): median, p99, most. */
  late: { p50: number; p99: number; max: number };
}

export const behindSchedule = (schedule: RowSchedule) =>
  schedule.achieved < schedule.scheduled * SCHEDULE_MIN_SHARE;
