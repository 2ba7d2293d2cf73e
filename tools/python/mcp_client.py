"""Drive jobgen's MCP server with the official Python SDK (mcp), as a client
nobody here wrote: examples/mcpjobs's clients_test.go runs it against the
example server over streamable HTTP and stdio and reads the JSON lines it
prints, one per check.

The SDK speaks 2026-07-28 and the handshake versions, and ships the
2025-11-25 task types (tools/call's `task`, tasks/get, tasks/result,
tasks/list, tasks/cancel), which it sends through its typed request API —
all but the task-augmented tools/call, whose answer it validates as a plain
CallToolResult, so that one goes through its JSON-RPC dispatcher.
It has no client side of the 2026-07-28 tasks extension: `TasksClaim`
adds it on the SDK's extension hooks (a result claim for `resultType:
"task"` that polls tasks/get), the SDK's own way for an extension.

Usage:
    mcp_client.py http URL TOKEN OTHER_TOKEN SCENARIO [TASKFILE]
    mcp_client.py stdio COMMAND... -- SCENARIO [TASKFILE]

SCENARIO is `main` (versions, schemas, a task in each form, a cancel,
another session's task, a subagent), `before-restart` (finish a task and
write its id to TASKFILE) or `after-restart` (read it back).
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Sequence
from typing import Any, Literal

import httpx2
import jsonschema
import mcp_types as types
from mcp import Client
from mcp.client import ClaimContext, ClientExtension, ResultClaim
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from pydantic import ConfigDict

TASKS = "io.modelcontextprotocol/tasks"


def emit(check: str, **fields: Any) -> None:
    """Print one check's outcome as a JSON line."""
    print(json.dumps({"check": check, **fields}), flush=True)


class Target:
    """Where the server is and who the client is."""

    def __init__(self, argv: list[str]) -> None:
        self.kind = argv[0]
        if self.kind == "http":
            self.url, self.token, self.other = argv[1], argv[2], argv[3]
            self.rest = argv[4:]
        else:
            cut = argv.index("--")
            self.command = argv[1:cut]
            self.rest = argv[cut + 1 :]

    def server(self, token: str | None = None) -> Any:
        if self.kind == "http":
            http = httpx2.AsyncClient(
                headers={"Authorization": f"Bearer {token or self.token}"}, timeout=60
            )
            from mcp.client.streamable_http import streamable_http_client

            return streamable_http_client(self.url, http_client=http)
        return StdioServerParameters(command=self.command[0], args=self.command[1:])

    def client(
        self,
        mode: str = "auto",
        token: str | None = None,
        extensions: Sequence[ClientExtension] = (),
    ) -> Client:
        return Client(
            self.server(token),
            mode=mode,  # type: ignore[arg-type]
            client_info=types.Implementation(name="jobgen-python-test", version="v0"),
            extensions=list(extensions),
            raise_exceptions=True,
        )


# The 2026-07-28 tasks extension, on the SDK's extension hooks.


class ModernTask(types.Result):
    """A task handle as the 2026-07-28 extension answers a tools/call with it."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"] = "task"
    task_id: str
    status: str
    status_message: str | None = None


class ModernTaskState(types.Result):
    """What tasks/get answers in the 2026-07-28 extension: the task, its
    result or error inlined once it has one."""

    model_config = ConfigDict(extra="allow")
    task_id: str
    status: str
    status_message: str | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class ModernGetParams(types.RequestParams):
    task_id: str


class ModernGet(types.Request[ModernGetParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: ModernGetParams
    name_param = "taskId"


class TasksClaim(ClientExtension):
    """The client side of io.modelcontextprotocol/tasks: a tools/call answered
    with a task is polled with tasks/get until it ends, and its result is the
    call's. Each poll's status is kept, to show the progress line moving."""

    identifier = TASKS

    def __init__(self) -> None:
        self.polls: list[tuple[str, str | None]] = []
        self.created: list[str] = []

    def claims(self) -> Sequence[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=ModernTask, resolve=self.resolve)]

    async def resolve(
        self, task: ModernTask, ctx: ClaimContext
    ) -> types.CallToolResult:
        self.created.append(task.task_id)
        while True:
            got = await ctx.session.send_request(
                ModernGet(params=ModernGetParams(task_id=task.task_id)), ModernTaskState
            )
            self.polls.append((got.status, got.status_message))
            if got.status not in ("working", "input_required"):
                if got.result is None:
                    raise MCPError.from_error_data(
                        types.ErrorData(
                            code=-32603, message=f"task {got.status}: {got.error}"
                        )
                    )
                return types.CallToolResult.model_validate(got.result)
            await asyncio.sleep(0.1)


# The checks.

SLOW = 'for i in 1 2 3; do echo "progress: step $i of 3"; sleep 0.7; done; echo done'


async def versions_and_schemas(t: Target) -> None:
    async with t.client() as c:
        emit(
            "version",
            mode="auto",
            negotiated=c.protocol_version,
            instructions=bool(c.instructions),
        )
        listed = await c.list_tools()
        for tool in listed.tools:
            raw = tool.model_dump(by_alias=True, exclude_none=True)
            jsonschema.Draft202012Validator.check_schema(raw["inputSchema"])
            if "outputSchema" in raw:
                jsonschema.Draft202012Validator.check_schema(raw["outputSchema"])
            strict = raw["inputSchema"].get("additionalProperties") is False
            emit(
                "tool",
                name=tool.name,
                title=raw.get("title"),
                strict=strict,
                annotations=raw.get("annotations"),
                taskSupport=(raw.get("execution") or {}).get("taskSupport"),
            )
        bogus = await c.call_tool("job_list", {"bogus": 1})
        emit(
            "bogus",
            isError=bogus.is_error,
            text=bogus.content[0].text if bogus.content else "",
        )  # type: ignore[union-attr]
    async with t.client(mode="legacy") as c:
        emit("version", mode="legacy", negotiated=c.protocol_version)


async def legacy_task(c: Client, command: str, label: str) -> str:
    """Start shell as a 2025-11-25 task. The SDK has the request's type
    (CallToolRequestParams.task) but validates every tools/call answer as a
    CallToolResult, which refuses the CreateTaskResult the task param asks
    for; so this one request goes out through the session's JSON-RPC
    dispatcher (its raw request API) and its answer is read with the SDK's
    CreateTaskResult."""
    params = types.CallToolRequestParams(
        name="shell",
        arguments={"command": command, "label": label},
        task=types.TaskMetadata(ttl=60000),
    ).model_dump(by_alias=True, mode="json", exclude_none=True)
    raw = await c.session._dispatcher.send_raw_request("tools/call", params, {})  # noqa: SLF001
    return types.CreateTaskResult.model_validate(raw, by_name=False).task.task_id


async def get(c: Client, task_id: str) -> types.GetTaskResult:
    return await c.session.send_request(
        types.GetTaskRequest(params=types.GetTaskRequestParams(task_id=task_id)),
        types.GetTaskResult,
    )


async def tasks_2025(t: Target) -> None:
    """The 2025-11-25 form, through the SDK's own task types."""
    async with t.client(mode="legacy") as c:
        task_id = await legacy_task(c, SLOW, "a task")
        seen = []
        while True:
            got = await get(c, task_id)
            if not seen or seen[-1] != (got.status, got.status_message):
                seen.append((got.status, got.status_message))
            if got.status != "working":
                break
            await asyncio.sleep(0.1)
        result = await c.session.send_request(
            types.GetTaskPayloadRequest(
                params=types.GetTaskPayloadRequestParams(task_id=task_id)
            ),
            types.CallToolResult,
        )
        listed = await c.session.send_request(
            types.ListTasksRequest(), types.ListTasksResult
        )
        emit(
            "task-2025",
            taskId=task_id,
            statuses=seen,
            structured=result.structured_content,
            output=[b.text for b in result.content if isinstance(b, types.TextContent)][
                1:
            ],
            listed=[x.task_id for x in listed.tasks],
        )
        doomed = await legacy_task(c, "sleep 30", "to be cancelled")
        cancelled = await c.session.send_request(
            types.CancelTaskRequest(
                params=types.CancelTaskRequestParams(task_id=doomed)
            ),
            types.CancelTaskResult,
        )
        for _ in range(50):
            after = await get(c, doomed)
            if after.status != "working":
                break
            await asyncio.sleep(0.1)
        emit(
            "cancel-2025", taskId=doomed, answered=cancelled.status, after=after.status
        )
        if t.kind == "http":
            async with t.client(mode="legacy", token=t.other) as other:
                foreign = unknown = ""
                try:
                    await get(other, task_id)
                except MCPError as e:
                    foreign = e.error.message
                nobody = "0b5c2f1e-7d1a-4c3b-9e8f-2a6b4c8d0e1f"
                try:
                    await get(other, nobody)
                except MCPError as e:
                    unknown = e.error.message.replace(nobody, task_id)
                emit("foreign-task", foreign=foreign, unknown=unknown)


async def tasks_2026(t: Target) -> None:
    """The 2026-07-28 extension, on the SDK's extension hooks."""
    ext = TasksClaim()
    async with t.client(extensions=[ext]) as c:
        result = await c.call_tool("shell", {"command": SLOW, "label": "a modern task"})
        moving = []
        for status, message in ext.polls:
            if not moving or moving[-1] != [status, message]:
                moving.append([status, message])
        emit(
            "task-2026",
            negotiated=c.protocol_version,
            created=ext.created,
            statuses=moving,
            structured=result.structured_content,
        )


async def subagent(t: Target) -> None:
    async with t.client() as c:

        async def notices(child: str, n: int) -> list[str]:
            got: list[str] = []
            for _ in range(100):
                res = await c.call_tool("notices", {})
                got += [
                    x
                    for x in (res.structured_content or {}).get("notices", [])
                    if child in x
                ]
                if len(got) >= n:
                    break
                await asyncio.sleep(0.1)
            return got

        started = await c.call_tool(
            "subagent_start",
            {"label": "check the build", "prompt": "look at the build log"},
        )
        child = (started.structured_content or {})["childId"]
        first = await notices(child, 2)
        await c.call_tool("send_message", {"to": child, "message": "and the test log?"})
        second = await notices(child, 2)
        emit("subagent", child=child, first=first, second=second)


async def before_restart(t: Target, path: str) -> None:
    async with t.client(mode="legacy") as c:
        task_id = await legacy_task(c, "echo failing; exit 3", "fails")
        for _ in range(100):
            if (await get(c, task_id)).status != "working":
                break
            await asyncio.sleep(0.1)
        with open(path, "w") as f:
            f.write(task_id)
        emit("before-restart", taskId=task_id)


async def after_restart(t: Target, path: str) -> None:
    with open(path) as f:
        task_id = f.read().strip()
    async with t.client(mode="legacy") as c:
        got = await get(c, task_id)
        result = await c.session.send_request(
            types.GetTaskPayloadRequest(
                params=types.GetTaskPayloadRequestParams(task_id=task_id)
            ),
            types.CallToolResult,
        )
        cancel = ""
        try:
            await c.session.send_request(
                types.CancelTaskRequest(
                    params=types.CancelTaskRequestParams(task_id=task_id)
                ),
                types.CancelTaskResult,
            )
        except MCPError as e:
            cancel = e.error.message
        emit(
            "after-restart",
            taskId=task_id,
            status=got.status,
            statusMessage=got.status_message,
            structured=result.structured_content,
            cancel=cancel,
        )


async def main(argv: list[str]) -> None:
    t = Target(argv)
    scenario = t.rest[0]
    if scenario == "main":
        await versions_and_schemas(t)
        await tasks_2025(t)
        await tasks_2026(t)
        await subagent(t)
    elif scenario == "before-restart":
        await before_restart(t, t.rest[1])
    elif scenario == "after-restart":
        await after_restart(t, t.rest[1])
    emit("done")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
