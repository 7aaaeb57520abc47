#!/usr/bin/env python3
"""A TCP proxy on 127.0.0.1 that adds a round-trip delay, for benchmarks without tc netem.

    python3 Tools/bench/delay_proxy.py --listen 8443 --target 8444 --rtt-ms 20

Every byte crosses it RTT/2 late in each direction, in order. A new connection also waits one
RTT before its first byte goes on (the TCP handshake the proxy answers locally at once), so a
fresh connection costs what it costs over a real link: one RTT for TCP, then TLS and HTTP
messages each RTT/2 each way. Throughput is not limited. Counts connections; on SIGTERM prints
`connections=N` to stderr.
"""

import argparse
import asyncio
import signal
import sys
import time

CONNECTIONS = 0


async def pump(reader, writer, delay, not_before):
    """Copies reader to writer, each chunk `delay` seconds after it arrived (never before `not_before`)."""
    queue = asyncio.Queue()

    async def forward():
        while True:
            item = await queue.get()
            if item is None:
                break
            due, data = item
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(data)
            await writer.drain()
        # Half-close only after the delayed bytes went out.
        if writer.can_write_eof():
            try:
                writer.write_eof()
            except OSError:
                pass

    sender = asyncio.ensure_future(forward())
    try:
        while True:
            data = await reader.read(1 << 18)
            if not data:
                break
            queue.put_nowait((max(time.monotonic() + delay, not_before + delay), data))
    except (ConnectionError, OSError):
        pass
    queue.put_nowait(None)
    try:
        await sender
    except (ConnectionError, OSError):
        pass


async def handle(client_reader, client_writer, target_port, rtt):
    global CONNECTIONS
    CONNECTIONS += 1
    accepted = time.monotonic()
    try:
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", target_port)
    except OSError:
        client_writer.close()
        return
    half = rtt / 2
    await asyncio.gather(
        pump(client_reader, upstream_writer, half, accepted + rtt),
        pump(upstream_reader, client_writer, half, accepted),
        return_exceptions=True)
    for writer in (client_writer, upstream_writer):
        try:
            writer.close()
        except OSError:
            pass


async def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--listen", type=int, required=True)
    parser.add_argument("--target", type=int, required=True)
    parser.add_argument("--rtt-ms", type=float, default=0)
    arguments = parser.parse_args()
    rtt = arguments.rtt_ms / 1000
    server = await asyncio.start_server(
        lambda r, w: handle(r, w, arguments.target, rtt), "127.0.0.1", arguments.listen, reuse_address=True)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    async with server:
        await stop.wait()
    print(f"connections={CONNECTIONS}", file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(main())
