"""The http-routes case's generated client (package sv) against a fake
server over httpx.MockTransport: every kind of route, the request each
method sends and the answer it decodes; run by client_test.go."""

from __future__ import annotations

import asyncio
import json

import httpx
from sv import shop
from sv.runtime import DecodeError, WireError
from sv.shop_client import AsyncClient, Client

ORDER = "6ba7b810-9dad-11d1-80b4-00c04fd430c8"
OTHER = "6ba7b811-9dad-11d1-80b4-00c04fd430c8"
sent: list[httpx.Request] = []


def sse(*events: str) -> httpx.Response:
    return httpx.Response(
        200,
        headers={"Content-Type": "text/event-stream"},
        content="".join(events).encode(),
    )


def answer(r: httpx.Request) -> httpx.Response:
    sent.append(r)
    path, q = r.url.path, r.url.params
    if r.method == "GET" and path == "/root/":
        return httpx.Response(200, content=b"<p>shop</p>")
    if r.method == "GET" and path == "/root/b.css":
        return httpx.Response(200, content=b"p{}")
    if r.method == "GET" and path == "/root/api/orders":
        if dict(q) != {"size": "large", "limit": "7", "shelf": "top"}:
            return httpx.Response(
                400, json={"message": "unexpected query", "hint": "x"}
            )
        order = {"id": ORDER, "size": "large", "branch": "north"}
        return httpx.Response(200, json=[order])
    if r.method == "POST" and path == "/root/api/orders":
        assert r.headers["content-type"] == "application/json"
        body = json.loads(r.content)
        if body.get("note") == "closed":
            return httpx.Response(409, json={"message": "the kitchen is closed"})
        return httpx.Response(200, json={"id": ORDER, **body})
    if path == f"/root/api/orders/{OTHER}/progress":
        return httpx.Response(404, json={"message": "no such order"})
    if path == f"/root/api/orders/{ORDER}/progress":
        assert q.get("after") == "3"
        return sse(
            'event: started\nid: 4\ndata: {"step":"started","at":4}\n\n',
            'event: cooked\nid: 5\ndata: {"step":"cooked","seq":5,"what":"soup"}\n\n',
            'event: served\ndata: {"step":"served"}\n\n',
            'event: cooked\nid: 6\ndata: {"step":"cooked","seq":6,"what":"no"}\n\n',
        )
    if path == "/root/api/counts":
        return sse(
            "event: count\ndata: 2\n\n",
            f'event: order-list\ndata: [{{"id":"{ORDER}","size":"small"}}]\n\n',
        )
    if path == f"/root/api/orders/{ORDER}/receipt":
        headers = {"X-Total-Cents": "350", "Content-Disposition": "attachment"}
        return httpx.Response(200, content=b"soup 350\n", headers=headers)
    if path == f"/root/api/orders/{OTHER}/receipt":
        return httpx.Response(200, content=b"", headers={"X-Total-Cents": "+3"})
    if r.method == "DELETE" and path == f"/root/api/orders/{ORDER}":
        assert r.content == b"" and r.headers["content-type"] == "application/json"
        return httpx.Response(200, json={"id": ORDER, "size": "small"})
    return httpx.Response(404, text="no route\n")


def sync() -> None:
    http = httpx.Client(transport=httpx.MockTransport(answer))
    with Client("http://shop.test/root", http=http) as c:
        assert c.home() == b"<p>shop</p>" and c.home("b.css") == b"p{}"
        (placed,) = c.list_orders(size="large", limit=7, shelf=shop.Shelf("top"))
        assert placed.item.id == ORDER and placed.extra.branch == "north"
        try:
            c.list_orders(shelf=shop.Shelf("top"))
            raise AssertionError("no refusal")
        except WireError as e:
            assert (e.status, e.reason) == (400, "unexpected query")
        order = c.place_order(shop.PlaceOrder(size="small", note="hot"))
        assert order.size == "small" and order.note == "hot"
        try:
            c.place_order(shop.PlaceOrder(size="small", note="closed"))
            raise AssertionError("no refusal")
        except WireError as e:
            assert (e.status, e.reason) == (409, "the kitchen is closed")
        progress = list(c.watch_order(shop.OrderID(ORDER), after=3))
        assert [type(p).__name__ for p in progress] == ["Started", "Cooked", "Served"]
        try:
            next(iter(c.watch_order(shop.OrderID(OTHER), after=3)))
            raise AssertionError("no refusal")
        except WireError as e:
            assert (e.status, e.reason) == (404, "no such order")
        counts = c.watch_counts()
        first, second = next(counts), next(counts)
        assert first.name == "count" and first.count == 2 and first.order_list is None
        assert (
            second.order_list is not None and second.order_list[0].item.size == "small"
        )
        receipt = c.receipt(shop.OrderID(ORDER))
        assert receipt.body == b"soup 350\n" and receipt.x_total_cents == 350
        assert receipt.content_disposition == "attachment"
        try:
            c.receipt(shop.OrderID(OTHER))
            raise AssertionError("a header of +3 read")
        except DecodeError as e:
            assert e.kind == "invalidValue"
        assert c.cancel(shop.OrderID(ORDER)).size == "small"
    assert sent[0].url.path == "/root/"


async def asynchronous() -> None:
    http = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    async with AsyncClient("http://shop.test/root/", http=http) as c:
        progress = [p async for p in c.watch_order(shop.OrderID(ORDER), after=3)]
        assert isinstance(progress[-1], shop.Served) and len(progress) == 3
        async for event in c.watch_counts():
            assert event.count == 2
            break
        assert (await c.cancel(shop.OrderID(ORDER))).id == ORDER
    await http.aclose()


sync()
asyncio.run(asynchronous())
print("ok", len(sent))
