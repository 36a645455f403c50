// A naive A2A consumer on the official JavaScript client (@a2a-js/sdk, as
// interop/install.sh pins it), run by `meshsim check` (docs/check.md). It is the same
// consumer as examples/consumers/python/naive.py: it trusts the Agent Card, streams the
// request, resubscribes when the stream stops at input-required, applies every state change
// it sees, and answers on the same task id.
//
// Usage: meshsim check [...] -- node examples/consumers/js/naive.mjs
// (meshsim_contract.mjs says where the SDK is loaded from.)

import { INTERRUPTED, TERMINAL, clientFactory, outcomeOf, run, sdk, textOf } from './meshsim_contract.mjs';

const { Role } = sdk('@a2a-js/sdk');

// The job and its report, set when the program starts.
let order;
let report;

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
    report.applied(belief.taskId, status.state, connection, index, via);
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
  return outcomeOf(report, belief.taskId, belief.state, belief.artifacts.join(''), belief.statusText);
}

async function naive() {
  const client = await clientFactory().createFromUrl(order.agentUrl);
  const card = await client.getAgentCard();
  if (!card.capabilities?.streaming) {
    report.outcome('gave-up', { reason: 'the Card does not promise streaming' });
    return;
  }
  await read(client.sendMessageStream({ message: message(order.request) }));
  for (let turn = 0; turn < 8; turn += 1) {
    if (settled()) return;
    if (belief.taskId === undefined) {
      report.outcome('gave-up', { reason: 'the agent never named a task' });
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
  if (!settled()) report.outcome('gave-up', { reason: 'no outcome after 8 turns' });
}

await run(async (jobOrder, jobReport) => {
  order = jobOrder;
  report = jobReport;
  await naive();
});
