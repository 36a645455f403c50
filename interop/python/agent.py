"""A small a2a-sdk 1.3.0 agent with the origin incident's script, for meshsim's interop tests.

A new task goes submitted -> working -> input-required, asking its question in the status
message; a follow-up carrying the task's id and the answer goes working -> artifact ->
completed.

It serves the SDK's JSON-RPC routes on http://127.0.0.1:PORT/ with the SDK's v0.3
compatibility layer on, the SDK's HTTP+JSON routes beside them (as the TCK runs the SDK, and
as the a2a-python-1.3 personality serves), and the v1.0 Card (the JSON-RPC interface first,
then HTTP+JSON) at /.well-known/agent-card.json. Under /v03/ the same agent (same handler, same
tasks) is offered to clients that speak only v0.3: a Card declaring one v0.3 interface (the
SDK adds the v0.3 fields itself) and the same JSON-RPC routes.

Usage: python agent.py --port PORT [--exit-with-stdin] (or PORT in the environment).
Prints `ready http://127.0.0.1:PORT/` once listening; stops on SIGTERM or SIGINT, and with
--exit-with-stdin also when its standard input closes (so it cannot outlive a test that
started it, even one killed outright).
"""

import argparse
import asyncio
import os
import sys
import threading

import uvicorn
from a2a.helpers import (
    get_message_text,
    new_task_from_user_message,
    new_text_artifact_update_event,
    new_text_message,
)
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import (
    create_agent_card_routes,
    create_jsonrpc_routes,
    create_rest_routes,
)
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types.a2a_pb2 import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    TaskState,
)
from starlette.applications import Starlette

QUESTION = 'Which format should the summary use?'
# The pause before each step of the script, like a real agent's work.
STEP_SECONDS = 0.05


class SeedScript(AgentExecutor):
    """Asks one question on a new task; completes the task on the answer."""

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task = context.current_task
        if task is None:
            task = new_task_from_user_message(context.message)
            await event_queue.enqueue_event(task)
        updater = TaskUpdater(event_queue, task.id, task.context_id)
        if task.status.state == TaskState.TASK_STATE_SUBMITTED:
            await asyncio.sleep(STEP_SECONDS)
            await updater.start_work()
            await asyncio.sleep(STEP_SECONDS)
            await updater.requires_input(
                new_text_message(QUESTION, context_id=task.context_id, task_id=task.id)
            )
            return
        answer = get_message_text(context.message)
        await updater.start_work()
        await asyncio.sleep(STEP_SECONDS)
        await event_queue.enqueue_event(
            new_text_artifact_update_event(
                task.id,
                task.context_id,
                name='summary',
                text=f'Summary (format: {answer})',
                last_chunk=True,
            )
        )
        await asyncio.sleep(STEP_SECONDS)
        await updater.complete(
            new_text_message('Done', context_id=task.context_id, task_id=task.id)
        )

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        await updater.cancel()


def card(url: str, protocol_version: str, rest_url: str | None = None) -> AgentCard:
    """The agent's Card, declaring a JSON-RPC interface at `url` and, given `rest_url`, an
    HTTP+JSON one there after it."""
    interfaces = [
        AgentInterface(url=url, protocol_binding='JSONRPC', protocol_version=protocol_version)
    ]
    if rest_url is not None:
        interfaces.append(
            AgentInterface(
                url=rest_url, protocol_binding='HTTP+JSON', protocol_version=protocol_version
            )
        )
    return AgentCard(
        name='meshsim interop agent (a2a-python)',
        description="The origin incident's script: asks one question, completes on the answer",
        version='1.3.0',
        supported_interfaces=interfaces,
        capabilities=AgentCapabilities(streaming=True, push_notifications=False),
        default_input_modes=['text/plain'],
        default_output_modes=['text/plain'],
        skills=[
            AgentSkill(
                id='summarise',
                name='Summarise',
                description='Summarises a text after asking which format to use',
                tags=['summary'],
            )
        ],
    )


def app(port: int) -> Starlette:
    base = f'http://127.0.0.1:{port}/'
    main_card = card(base, '1.0', rest_url=base.rstrip('/'))
    handler = DefaultRequestHandler(
        agent_executor=SeedScript(),
        task_store=InMemoryTaskStore(),
        agent_card=main_card,
    )
    routes = [
        *create_agent_card_routes(main_card),
        *create_jsonrpc_routes(handler, '/', enable_v0_3_compat=True),
        *create_agent_card_routes(
            card(f'{base}v03/', '0.3'), card_url='/v03/.well-known/agent-card.json'
        ),
        *create_jsonrpc_routes(handler, '/v03/', enable_v0_3_compat=True),
        # Last: the REST routes include `/{tenant}/...` patterns that would shadow /v03/.
        *create_rest_routes(handler),
    ]
    return Starlette(routes=routes)


async def serve(port: int) -> None:
    config = uvicorn.Config(
        app(port), host='127.0.0.1', port=port, log_level='warning', lifespan='off'
    )
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve())
    while not server.started:
        if serving.done():
            # uvicorn logs why it could not start (e.g. the port is taken).
            sys.exit(1)
        await asyncio.sleep(0.01)
    print(f'ready http://127.0.0.1:{port}/', flush=True)
    await serving


def exit_at_end_of_stdin() -> None:
    sys.stdin.read()
    os._exit(0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--port', type=int, default=os.environ.get('PORT'))
    parser.add_argument('--exit-with-stdin', action='store_true')
    args = parser.parse_args()
    if args.port is None or not 0 < args.port < 65536:
        parser.error(f'need --port PORT (1-65535), got {args.port}')
    if args.exit_with_stdin:
        threading.Thread(target=exit_at_end_of_stdin, daemon=True).start()
    asyncio.run(serve(args.port))


if __name__ == '__main__':
    main()
