// A naive A2A consumer on the official JavaScript client (@a2a-js/sdk, as
// interop/install.sh pins it), run by `meshsim check` (docs/check.md). It is the same
// consumer as examples/consumers/python/naive.py: it trusts the Agent Card, streams the
// request, resubscribes when the stream stops at input-required, applies every state change
// it sees, and answers on the same task id.
//
// Usage: meshsim check [...] -- node examples/consumers/js/naive.mjs
// The SDK is loaded from MESHSIM_INTEROP_NODE (the npm prefix interop/install.sh fills),
// by default target/interop/node in this repository.

import { createRequire } from 'node:module';
import { writeFileSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const prefix =
  process.env.MESHSIM_INTEROP_NODE ??
  fileURLToPath(new URL('../../../target/interop/node/', import.meta.url));
const require = createRequire(join(prefix, 'package.json'));
const { ClientFactory } = require('@a2a-js/sdk/client');
const { Role, TaskState } = require('@a2a-js/sdk');

const env = process.env;
const order = {
  agentUrl: env.MESHSIM_AGENT_URL,
  request: env.MESHSIM_REQUEST,
  answer: env.MESHSIM_ANSWER,
  cancelAtInputRequired: env.MESHSIM_CANCEL_AT_INPUT_REQUIRED === '1',
  jobDeadlineMs: Number(env.MESHSIM_JOB_DEADLINE_MS),
  seed: env.MESHSIM_SEED,
  report: env.MESHSIM_REPORT,
};

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
const INTERRUPTED = new Set([TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED]);
const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

// The report: one JSON line per state applied, the outcome last (written as it goes, so a
// crash leaves what was done).
writeFileSync(order.report, '');
let finished = false;
const line = (fields) => appendFileSync(order.report, JSON.stringify(fields) + '\n');
const outcome = (fields) => {
  if (!finished) {
    line({ kind: 'outcome', ...fields });
    finished = true;
  }
};

const textOf = (parts) =>
  parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');

// The consumer's belief about its one task.
const belief = { taskId: undefined, contextId: undefined, state: undefined, artifacts: [], statusText: '' };
let connections = 0;
let messages = 0;

function message(text, taskId) {
  messages += 1;
  return {
    messageId: `msg-${order.seed}-${messages}`,
    contextId: belief.contextId ?? `ctx-${order.seed}`,
    taskId: taskId ?? '',
    role: Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

// Applies one event; whether it ends what the consumer reads (a question or an end).
function apply(event, connection, index, via) {
  const payload = event.payload;
  let status;
  if (payload?.$case === 'task') {
    const task = payload.value;
    belief.taskId ??= task.id;
    belief.contextId = task.contextId || belief.contextId;
    for (const artifact of task.artifacts) belief.artifacts.push(textOf(artifact.parts));
    status = task.status;
  } else if (payload?.$case === 'statusUpdate') {
    const update = payload.value;
    belief.taskId ??= update.taskId;
    belief.contextId = update.contextId || belief.contextId;
    status = update.status;
  } else if (payload?.$case === 'artifactUpdate') {
    belief.artifacts.push(textOf(payload.value.artifact.parts));
    return false;
  } else {
    return false;
  }
  if (status.message) belief.statusText = textOf(status.message.parts);
  if (status.state !== belief.state) {
    line({
      kind: 'applied',
      task: belief.taskId,
      state: STATE_NAMES[status.state] ?? 'unknown',
      source: { connection, index, via },
    });
    belief.state = status.state;
  }
  return INTERRUPTED.has(status.state) || TERMINAL.has(status.state);
}

// Reads a stream until a question or an end, applying every event.
async function read(stream, answering = false) {
  connections += 1;
  const connection = connections;
  let index = 0;
  try {
    for await (const event of stream) {
      const before = belief.state;
      const via = event.payload?.$case === 'task' ? 'snapshot' : 'status-update';
      const settles = apply(event, connection, index, via);
      index += 1;
      // An answer's stream may open with the question still pending.
      if (settles && !(answering && belief.state === before)) break;
    }
  } catch (error) {
    // A cut stream, a closed connection: the naive keep going.
    console.log(`stream ${connection}: ${error}`);
  }
}

function settled() {
  if (belief.taskId === undefined || !TERMINAL.has(belief.state)) return false;
  const task = belief.taskId;
  if (belief.state === TaskState.TASK_STATE_COMPLETED) {
    outcome({ outcome: 'completed', task, artifact: belief.artifacts.join('') });
  } else if (belief.state === TaskState.TASK_STATE_CANCELED) {
    outcome({ outcome: 'canceled', task });
  } else {
    outcome({ outcome: 'failed', task, reason: belief.statusText || 'task failed' });
  }
  return true;
}

async function run() {
  const client = await new ClientFactory().createFromUrl(order.agentUrl);
  const card = await client.getAgentCard();
  if (!card.capabilities?.streaming) {
    outcome({ outcome: 'gave-up', reason: 'the Card does not promise streaming' });
    return;
  }
  await read(client.sendMessageStream({ message: message(order.request) }));
  for (let turn = 0; turn < 8; turn += 1) {
    if (settled()) return;
    if (belief.taskId === undefined) {
      outcome({ outcome: 'gave-up', reason: 'the agent never named a task' });
      return;
    }
    // The Card says streaming, so the stream is where the task lives.
    await read(client.resubscribeTask({ id: belief.taskId }));
    if (settled()) return;
    if (INTERRUPTED.has(belief.state) && order.cancelAtInputRequired) {
      connections += 1;
      try {
        const task = await client.cancelTask({ id: belief.taskId });
        apply({ payload: { $case: 'task', value: task } }, connections, 0, 'result');
      } catch (error) {
        console.log(`cancel: ${error}`);
      }
    } else if (INTERRUPTED.has(belief.state)) {
      await read(client.sendMessageStream({ message: message(order.answer, belief.taskId) }), true);
    }
  }
  if (!settled()) outcome({ outcome: 'gave-up', reason: 'no outcome after 8 turns' });
}

const deadline = setTimeout(() => {
  outcome({ outcome: 'gave-up', reason: 'job deadline passed' });
  process.exit(0);
}, order.jobDeadlineMs);
try {
  await run();
} catch (error) {
  outcome({ outcome: 'gave-up', reason: String(error) });
}
clearTimeout(deadline);
process.exit(0);
