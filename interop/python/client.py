"""The official Python A2A client (a2a-sdk 1.3.0's `create_client`, JSON-RPC transport; v1.0,
or v0.3 through its compatibility transport, as the agent's Card says) as a witness: it
drives an agent through a whole lifecycle and prints, as one JSON object on stdout, what it
parsed at each step, for tests/interop/support/witness.rs to compare with what the agent
served. A call that raises is reported as the class of its error.

Steps: a streamed first turn (to the agent's question), a streamed follow-up answering it,
`get_task` of the task the follow-up completed, `list_tasks`, a second task cancelled while it waits, and
`get_task` of a task that does not exist.

Usage: client.py URL [BINDING]   (URL is the agent's base URL; its Card is read from there.
BINDING, e.g. HTTP+JSON, is the only protocol binding the client may use; JSONRPC by default.)
"""

import asyncio
import json
import sys
from contextlib import aclosing

from a2a.client import ClientConfig, create_client
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    GetTaskRequest,
    ListTasksRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    TaskState,
)


def state_name(state):
    return TaskState.Name(state)


def message(text, message_id, task_id=None, context_id=None):
    msg = Message(role=Role.ROLE_USER, message_id=message_id, parts=[Part(text=text)])
    if task_id:
        msg.task_id = task_id
    if context_id:
        msg.context_id = context_id
    return SendMessageRequest(message=msg)


# Where a turn ends for the client: the task is done, or it waits for the user again after
# working on this message. An agent that closes its stream only at a terminal state
# (a2a-java) keeps it open past input-required, so the client stops reading there and closes
# the stream itself, as a real caller would. A follow-up's stream may open with the task as
# it stands (a2a-js: still input-required), which is not yet the answer.
TERMINAL = {
    TaskState.TASK_STATE_COMPLETED,
    TaskState.TASK_STATE_FAILED,
    TaskState.TASK_STATE_CANCELED,
    TaskState.TASK_STATE_REJECTED,
}
INTERRUPTED = {TaskState.TASK_STATE_INPUT_REQUIRED, TaskState.TASK_STATE_AUTH_REQUIRED}


async def turn(client, request):
    """Sends one message; the task id, context id and the states the stream reported."""
    task_id, context_id, states, worked = None, None, [], False
    async with aclosing(client.send_message(request)) as stream:
        async for event in stream:
            if event.HasField("task"):
                task_id, context_id = event.task.id, event.task.context_id
                state = event.task.status.state
            elif event.HasField("status_update"):
                task_id = event.status_update.task_id
                context_id = event.status_update.context_id
                state = event.status_update.status.state
            else:
                continue
            states.append(state_name(state))
            worked = worked or state == TaskState.TASK_STATE_WORKING
            if state in TERMINAL or (worked and state in INTERRUPTED):
                break
    return task_id, context_id, states


async def outcome(call):
    """What a call parsed: the task it returned, or the class of the error it raised."""
    try:
        return describe(await call)
    except Exception as error:  # noqa: BLE001 - the error class is what is reported
        return {"error": type(error).__name__}


def describe(task):
    return {
        "id": task.id,
        "state": state_name(task.status.state),
        "history": [
            {"role": Role.Name(m.role), "text": "".join(p.text for p in m.parts)}
            for m in task.history
        ],
        "artifacts": [
            {"name": a.name, "text": "".join(p.text for p in a.parts)} for a in task.artifacts
        ],
    }


async def main(url, binding):
    config = ClientConfig(streaming=True, supported_protocol_bindings=[binding])
    client = await create_client(url, client_config=config)
    report = {}
    task_id, context_id, states = await turn(client, message("plan a trip", "py-1"))
    report["first_turn"] = {"task_id": task_id, "states": states}
    # A runtime that reaped the task answers the follow-up with a new one; read that back.
    answered, _, states = await turn(client, message("markdown", "py-2", task_id, context_id))
    report["follow_up"] = {"task_id": answered, "states": states}
    report["get_task"] = await outcome(client.get_task(GetTaskRequest(id=answered)))
    try:
        listed = await client.list_tasks(ListTasksRequest())
        report["list_tasks"] = {"ids": [task.id for task in listed.tasks]}
    except Exception as error:  # noqa: BLE001 - v0.3 has no ListTasks; the client refuses it
        report["list_tasks"] = {"error": type(error).__name__}
    waiting, _, _ = await turn(client, message("book a table", "py-3"))
    report["waiting_task_id"] = waiting
    report["cancel_task"] = await outcome(client.cancel_task(CancelTaskRequest(id=waiting)))
    report["unknown_task"] = await outcome(client.get_task(GetTaskRequest(id="no-such-task")))
    await client.close()
    print(json.dumps(report))


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        print("usage: client.py URL [BINDING]", file=sys.stderr)
        sys.exit(2)
    asyncio.run(main(sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else "JSONRPC"))
