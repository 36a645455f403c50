// The official JavaScript A2A client (@a2a-js/sdk 1.3.0's `ClientFactory`, JSON-RPC
// transport and Card resolver with their v0.3 compatibility layer on, so v1.0 or v0.3 as the agent's Card says)
// as a witness: it drives an agent through a whole lifecycle and prints, as one JSON object
// on stdout, what it parsed at each step, for tests/interop/support/witness.rs to compare
// with what the agent served. A call that throws is reported as the class of its error. The
// same report as interop/python/client.py.
//
// Steps: a streamed first turn (to the agent's question), a streamed follow-up answering it,
// `getTask` of the task the follow-up answered, `listTasks`, a second task canceled while it
// waits, and `getTask` of a task that does not exist.
//
// Usage: node client.mjs URL   (URL is the agent's base URL; its Card is read from there)
// The SDK is loaded from MESHSIM_INTEROP_NODE (the npm prefix interop/install.sh fills).

import { createRequire } from 'node:module';
import { join } from 'node:path';

const prefix = process.env.MESHSIM_INTEROP_NODE;
if (!prefix) {
  console.error('client.mjs: set MESHSIM_INTEROP_NODE to the npm prefix holding @a2a-js/sdk');
  process.exit(2);
}
if (process.argv.length !== 3) {
  console.error('usage: client.mjs URL');
  process.exit(2);
}
const require = createRequire(join(prefix, 'package.json'));
const {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} = require('@a2a-js/sdk/client');
const { Role, TaskState } = require('@a2a-js/sdk');

// Where a turn ends for the client: the task is done, or it waits for the user again after
// working on this message. An agent that closes its stream only at a terminal state
// (a2a-java) keeps it open past input-required, so the client stops reading there (which
// closes the stream), as a real caller would. A follow-up's stream may open with the task as
// it stands (a2a-js: still input-required), which is not yet the answer.
const TERMINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);
const INTERRUPTED = new Set([TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED]);

const textOf = (parts) =>
  parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('');

function message(text, messageId, taskId = '', contextId = '') {
  return {
    tenant: '',
    message: {
      messageId,
      contextId,
      taskId,
      role: Role.ROLE_USER,
      parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    },
    configuration: undefined,
    metadata: undefined,
  };
}

// Sends one message; the task id, context id and the states the stream reported.
async function turn(client, request) {
  let taskId;
  let contextId;
  let worked = false;
  const states = [];
  for await (const event of client.sendMessageStream(request)) {
    let state;
    if (event.payload?.$case === 'task') {
      ({ id: taskId, contextId } = event.payload.value);
      state = event.payload.value.status?.state;
    } else if (event.payload?.$case === 'statusUpdate') {
      ({ taskId, contextId } = event.payload.value);
      state = event.payload.value.status?.state;
    } else {
      continue;
    }
    states.push(TaskState[state] ?? String(state));
    worked ||= state === TaskState.TASK_STATE_WORKING;
    if (TERMINAL.has(state) || (worked && INTERRUPTED.has(state))) {
      break;
    }
  }
  return { taskId, contextId, states };
}

const describe = (task) => ({
  id: task.id,
  state: TaskState[task.status?.state] ?? String(task.status?.state),
  history: task.history.map((m) => ({ role: Role[m.role] ?? String(m.role), text: textOf(m.parts) })),
  artifacts: task.artifacts.map((a) => ({ name: a.name, text: textOf(a.parts) })),
});

// What a call parsed: the task it returned, or the class of the error it threw.
async function outcome(call) {
  try {
    return describe(await call());
  } catch (error) {
    return { error: error.constructor.name };
  }
}

const url = process.argv[2];
// The compatibility layer is switched on twice: the resolver translates a v0.3 Card, the
// transport speaks v0.3 to an interface that declares it.
const legacyCompat = { enabled: true };
const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
  transports: [new JsonRpcTransportFactory({ legacyCompat })],
  cardResolver: new DefaultAgentCardResolver({ legacyCompat }),
});
const client = await new ClientFactory(options).createFromUrl(url);
const report = {};
const first = await turn(client, message('plan a trip', 'js-1'));
report.first_turn = { task_id: first.taskId, states: first.states };
// A runtime that reaped the task answers the follow-up with a new one; read that back.
const followUp = await turn(client, message('markdown', 'js-2', first.taskId, first.contextId));
report.follow_up = { task_id: followUp.taskId, states: followUp.states };
report.get_task = await outcome(() => client.getTask({ tenant: '', id: followUp.taskId }));
try {
  // Every required field of the request type: left out, `status` goes out as
  // "UNRECOGNIZED", which a2a-sdk 1.3.0 and meshsim read as no filter
  // (tests/interop/support/list_filter.rs).
  const listed = await client.listTasks({
    tenant: '',
    contextId: '',
    status: TaskState.TASK_STATE_UNSPECIFIED,
    pageToken: '',
    statusTimestampAfter: undefined,
  });
  report.list_tasks = { ids: listed.tasks.map((task) => task.id) };
} catch (error) {
  report.list_tasks = { error: error.constructor.name };
}
const waiting = await turn(client, message('book a table', 'js-3'));
report.waiting_task_id = waiting.taskId;
report.cancel_task = await outcome(() => client.cancelTask({ tenant: '', id: waiting.taskId }));
report.unknown_task = await outcome(() => client.getTask({ tenant: '', id: 'no-such-task' }));
console.log(JSON.stringify(report));
