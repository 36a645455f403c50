// The `meshsim check` contract for JavaScript consumers (docs/check.md): the job a program
// is started with, and the report it writes, one JSON line per state applied, task
// abandoned, deadline enforced, and its outcome last.
//
// Both examples beside this file use it. The SDK (@a2a-js/sdk) is loaded from
// MESHSIM_INTEROP_NODE (the npm prefix interop/install.sh fills), by default
// target/interop/node in this repository.

import { createRequire } from 'node:module';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const prefix =
  process.env.MESHSIM_INTEROP_NODE ??
  fileURLToPath(new URL('../../../target/interop/node/', import.meta.url));

/** A module of the installed SDK, e.g. `sdk('@a2a-js/sdk/client')`. */
export const sdk = createRequire(join(prefix, 'package.json'));

export const { TaskState } = sdk('@a2a-js/sdk');

/** A client factory for A2A v1.0 agents and, through the SDK's compatibility layer (off by
 * default), v0.3 ones: their Cards and both their bindings. `clientConfig` is the clients'
 * (e.g. `{ polling: true }`). */
export function clientFactory(clientConfig = {}) {
  const {
    ClientFactory,
    ClientFactoryOptions,
    DefaultAgentCardResolver,
    JsonRpcTransportFactory,
    RestTransportFactory,
  } = sdk('@a2a-js/sdk/client');
  const legacyCompat = { enabled: true };
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ legacyCompat }), new RestTransportFactory({ legacyCompat })],
      cardResolver: new DefaultAgentCardResolver({ legacyCompat }),
      clientConfig,
    }),
  );
}

/** What a task state is called in the report: the origin note's lowercase names. */
const STATE_NAMES = {
  [TaskState.TASK_STATE_SUBMITTED]: 'submitted',
  [TaskState.TASK_STATE_WORKING]: 'working',
  [TaskState.TASK_STATE_INPUT_REQUIRED]: 'input-required',
  [TaskState.TASK_STATE_AUTH_REQUIRED]: 'auth-required',
  [TaskState.TASK_STATE_COMPLETED]: 'completed',
  [TaskState.TASK_STATE_FAILED]: 'failed',
  [TaskState.TASK_STATE_CANCELED]: 'canceled',
  [TaskState.TASK_STATE_REJECTED]: 'rejected',
};
export const INTERRUPTED = new Set([
  TaskState.TASK_STATE_INPUT_REQUIRED,
  TaskState.TASK_STATE_AUTH_REQUIRED,
]);
export const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

export const stateName = (state) => STATE_NAMES[state] ?? 'unknown';

/** The job, as meshsim hands it over in the environment. */
export function orderFromEnv(env = process.env) {
  const jobDeadlineMs = Number(env.MESHSIM_JOB_DEADLINE_MS);
  return {
    agentUrl: env.MESHSIM_AGENT_URL,
    dialect: env.MESHSIM_DIALECT,
    job: env.MESHSIM_JOB,
    request: env.MESHSIM_REQUEST,
    answer: env.MESHSIM_ANSWER,
    cancelAtInputRequired: env.MESHSIM_CANCEL_AT_INPUT_REQUIRED === '1',
    submittedDeadlineMs: Number(env.MESHSIM_SUBMITTED_DEADLINE_MS),
    workingDeadlineMs: Number(env.MESHSIM_WORKING_DEADLINE_MS),
    jobDeadlineMs,
    // When the job's deadline passes, on `performance.now()`: counted from when the order
    // was read, so that the time spent before the work (the Card fetched, the clients
    // made) counts against it too.
    deadlineAt: performance.now() + jobDeadlineMs,
    seed: env.MESHSIM_SEED,
    report: env.MESHSIM_REPORT,
  };
}

/** Milliseconds until the job's deadline. */
export const jobTimeLeftMs = (order) => Math.max(0, order.deadlineAt - performance.now());

/** The report file, written a line at a time (so a crash leaves what was done). */
export class Report {
  constructor(path) {
    this.path = path;
    this.finished = false;
    writeFileSync(path, '');
  }

  line(fields) {
    appendFileSync(this.path, JSON.stringify(fields) + '\n');
  }

  /** `via`: snapshot (a Task on a stream), status-update, or result (a Task answered by a
   * send, get or cancel). */
  applied(task, state, connection, index, via) {
    this.line({ kind: 'applied', task, state: stateName(state), source: { connection, index, via } });
  }

  deadline(task, state, limitMs) {
    this.line({ kind: 'deadline', task, state: stateName(state), limit_ms: limitMs });
  }

  abandoned(task, reason, cancel) {
    this.line({ kind: 'abandoned', task, reason, cancel });
  }

  /** The job's one outcome; any later one is dropped. */
  outcome(outcome, fields = {}) {
    if (this.finished) return;
    this.line({ kind: 'outcome', outcome, ...fields });
    this.finished = true;
  }
}

/** Writes the outcome a terminal `state` stands for; whether it was terminal. */
export function outcomeOf(report, task, state, artifact, reason) {
  if (state === TaskState.TASK_STATE_COMPLETED) {
    report.outcome('completed', { task, artifact });
  } else if (state === TaskState.TASK_STATE_FAILED || state === TaskState.TASK_STATE_REJECTED) {
    report.outcome('failed', { task, reason: reason || 'task failed' });
  } else if (state === TaskState.TASK_STATE_CANCELED) {
    report.outcome('canceled', { task });
  } else {
    return false;
  }
  return true;
}

/** The text of a message's or an artifact's parts. */
export const textOf = (parts) =>
  parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');

/** Runs `await main(order, report)` for the order in the environment, within the job's
 * deadline; a deadline passed or any failure becomes a gave-up outcome. Exits when done. */
export async function run(main) {
  const order = orderFromEnv();
  const report = new Report(order.report);
  const deadline = setTimeout(() => {
    report.outcome('gave-up', { reason: 'job deadline passed' });
    process.exit(0);
  }, jobTimeLeftMs(order));
  try {
    await main(order, report);
  } catch (error) {
    report.outcome('gave-up', { reason: String(error) });
  }
  clearTimeout(deadline);
  process.exit(0);
}
