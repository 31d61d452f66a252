/** The run ended on a stop or force stop from the console (or its task was moved on without it). */
export class Stopped extends Error {}
/** The run ended on a rejection: of its plan by a user, or by the template's policy. */
export class Rejected extends Error {}
