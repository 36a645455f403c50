// A small @a2a-js/sdk 1.3.0 agent with the origin incident's script, for meshsim's interop tests.
//
// A new task goes submitted -> working -> input-required, asking its question in the status
// message; a follow-up carrying the task's id and the answer goes working -> artifact ->
// completed. Every turn opens with the Task, as the SDK requires of an executor.
//
// It serves the SDK's own JSON-RPC handler on http://127.0.0.1:PORT/ with the v0.3
// compatibility layer on and the v1.0 Card at /.well-known/agent-card.json (v0.3-shaped for
// a request without `A2A-Version`, as the SDK does). Under /v03/ the same agent (same tasks)
// is offered to clients that speak only v0.3: a Card declaring one v0.3 interface, in the
// SDK's v0.3 shape, and the SDK's JSON-RPC handler with its compatibility layer.
//
// Usage: node agent.mjs --port PORT [--exit-with-stdin] (or PORT in the environment). The
// SDK is loaded from MESHSIM_INTEROP_NODE (the npm prefix interop/install.sh fills). Prints
// `ready http://127.0.0.1:PORT/` once listening; stops on SIGTERM or SIGINT, and with
// --exit-with-stdin also when its standard input closes (so it cannot outlive a test that
// started it, even one killed outright).

import { createRequire } from 'node:module';
import { join } from 'node:path';

const prefix = process.env.MESHSIM_INTEROP_NODE;
if (!prefix) {
  console.error('agent.mjs: set MESHSIM_INTEROP_NODE to the npm prefix holding @a2a-js/sdk');
  process.exit(2);
}
const require = createRequire(join(prefix, 'package.json'));
const express = require('express');
const { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } = require('@a2a-js/sdk/server');
const { UserBuilder, agentCardHandler, jsonRpcHandler, restHandler } = require('@a2a-js/sdk/server/express');
const { Role, TaskState } = require('@a2a-js/sdk');

function portFromArgs() {
  const flag = process.argv.indexOf('--port');
  const raw = flag >= 0 ? process.argv[flag + 1] : process.env.PORT;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    console.error(`agent.mjs: need --port PORT (1-65535), got ${raw}`);
    process.exit(2);
  }
  return port;
}

const port = portFromArgs();
const url = `http://127.0.0.1:${port}/`;
const QUESTION = 'Which format should the summary use?';
// The pause before each step of the script, like a real agent's work.
const STEP_MS = 50;

const card = {
  name: 'meshsim interop agent (a2a-js)',
  description: "The origin incident's script: asks one question, completes on the answer",
  version: '1.3.0',
  supportedInterfaces: [
    { url, protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
    { url, protocolBinding: 'JSONRPC', protocolVersion: '0.3', tenant: '' },
    // The SDK's HTTP+JSON routes are served beside JSON-RPC, as the a2a-js-1.3 personality does.
    { url: url.replace(/\/$/, ''), protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: '' },
  ],
  provider: undefined,
  capabilities: { streaming: true, pushNotifications: false, extensions: [] },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [
    {
      id: 'summarise',
      name: 'Summarise',
      description: 'Summarises a text after asking which format to use',
      tags: ['summary'],
      examples: [],
      inputModes: [],
      outputModes: [],
      securityRequirements: [],
    },
  ],
  signatures: [],
};

const textPart = (value) => ({
  content: { $case: 'text', value },
  metadata: undefined,
  filename: '',
  mediaType: 'text/plain',
});

const agentMessage = (taskId, contextId, text) => ({
  messageId: `${taskId}-agent-${Date.now()}`,
  contextId,
  taskId,
  role: Role.ROLE_AGENT,
  parts: [textPart(text)],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

const textOf = (message) =>
  (message?.parts ?? [])
    .filter((part) => part.content?.$case === 'text')
    .map((part) => part.content.value)
    .join('\n');

const status = (state, message) => ({
  state,
  message,
  timestamp: new Date().toISOString(),
});

const pause = () => new Promise((resolve) => setTimeout(resolve, STEP_MS));

class SeedScript {
  constructor() {
    this.canceled = new Set();
    // taskId -> contextId, for cancel (which is handed only the task's id).
    this.contexts = new Map();
  }

  async execute(context, bus) {
    const { taskId, contextId, task } = context;
    this.contexts.set(taskId, contextId);
    const update = (state, message) =>
      bus.publish(
        AgentEvent.statusUpdate({ taskId, contextId, status: status(state, message), metadata: undefined }),
      );
    if (!task) {
      bus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: status(TaskState.TASK_STATE_SUBMITTED, undefined),
          artifacts: [],
          history: [context.userMessage],
          metadata: undefined,
        }),
      );
      await pause();
      if (this.canceled.has(taskId)) return;
      update(TaskState.TASK_STATE_WORKING, undefined);
      await pause();
      if (this.canceled.has(taskId)) return;
      update(TaskState.TASK_STATE_INPUT_REQUIRED, agentMessage(taskId, contextId, QUESTION));
      return;
    }
    // A follow-up: the SDK wants the Task first on every turn.
    bus.publish(AgentEvent.task(task));
    const answer = textOf(context.userMessage);
    update(TaskState.TASK_STATE_WORKING, undefined);
    await pause();
    if (this.canceled.has(taskId)) return;
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: `${taskId}-summary`,
          name: 'summary',
          description: '',
          parts: [textPart(`Summary (format: ${answer})`)],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    await pause();
    if (this.canceled.has(taskId)) return;
    update(TaskState.TASK_STATE_COMPLETED, agentMessage(taskId, contextId, 'Done'));
  }

  async cancelTask(taskId, bus) {
    this.canceled.add(taskId);
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: this.contexts.get(taskId) ?? '',
        status: status(TaskState.TASK_STATE_CANCELED, undefined),
        metadata: undefined,
      }),
    );
  }
}

const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), new SeedScript());
const legacyCompat = { enabled: true };
// The same agent (same handler, same tasks) seen by a client that speaks only v0.3: its
// Card declares a single v0.3 interface at /v03/.
const v03Url = `${url}v03/`;
const v03Card = {
  ...card,
  supportedInterfaces: [{ url: v03Url, protocolBinding: 'JSONRPC', protocolVersion: '0.3', tenant: '' }],
};
const v03Handler = Object.create(handler);
v03Handler.getAgentCard = async () => v03Card;

const app = express();
app.use(
  '/v03/.well-known/agent-card.json',
  // The SDK picks the Card's shape from the A2A-Version header; a v0.3 client sends none.
  (req, _res, next) => {
    delete req.headers['a2a-version'];
    next();
  },
  agentCardHandler({ agentCardProvider: v03Handler, legacyCompat }),
);
app.use('/v03', jsonRpcHandler({ requestHandler: v03Handler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler, legacyCompat }));
app.use('/', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication, legacyCompat }));
app.use('/', restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));

const server = app.listen(port, '127.0.0.1', () => {
  console.log(`ready ${url}`);
});
server.on('error', (error) => {
  console.error(`agent.mjs: cannot listen on 127.0.0.1:${port}: ${error.message}`);
  process.exit(1);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
if (process.argv.includes('--exit-with-stdin')) {
  process.stdin.on('end', () => process.exit(0));
  process.stdin.resume();
}
