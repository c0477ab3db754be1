"""The `local` transport's inboxes (fifo_inbox.py): named pipes opened by path where used.

What they must keep from the multiprocessing queues they replaced: whole messages in order per
writer however many processes write at once, a sender that never waits for its reader, nothing
sent lost when the sender exits at once, and clear errors, not hangs, when an inbox is gone.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import queue
import select
import time
from pathlib import Path

import pytest

from smol_core.teams.errors import PeerGoneError
from smol_core.teams.fifo_inbox import FifoInbox, InboxGoneError
from smol_core.teams.local import LocalTransport
from smol_core.teams.message import Message

LIMIT = 1 << 20


@pytest.fixture
def inbox(tmp_path: Path):
    made = FifoInbox(str(tmp_path / "0"), LIMIT, make=True)
    yield made
    made.close(flush_seconds=1)


def drain(inbox: FifoInbox, expected: int, timeout: float = 20.0) -> list[str | bytes]:
    got: list[str | bytes] = []
    deadline = time.monotonic() + timeout
    while len(got) < expected and time.monotonic() < deadline:
        try:
            got.append(inbox.get(timeout=1.0))
        except queue.Empty:
            pass
    return got


def write_many(inbox: FifoInbox, tag: str, count: int, size: int) -> None:
    for n in range(count):
        inbox.put(f"{tag}:{n}:" + tag * size)
    inbox.close()  # what the pipe has not taken yet is written before the process ends


def test_messages_many_times_pipe_buf_from_two_processes_at_once_arrive_whole_and_in_order(inbox):
    """Chunks of at most PIPE_BUF bytes are written whole and put back together per writer."""
    ctx = multiprocessing.get_context("spawn")
    writers = [ctx.Process(target=write_many, args=(inbox, tag, 60, 20_000)) for tag in "ab"]
    for writer in writers:
        writer.start()
    got = drain(inbox, 120)
    for writer in writers:
        writer.join(30)
        assert writer.exitcode == 0
    assert len(got) == 120
    for tag in "ab":
        mine = [text for text in got if isinstance(text, str) and text.startswith(tag + ":")]
        assert [text.split(":")[1] for text in mine] == [str(n) for n in range(60)]
        assert all(text.endswith(tag * 20_000) for text in mine)


def test_a_sender_never_waits_for_a_reader_that_does_not_read(inbox):
    """The pipe holds 64 KB; 4 MB more wait in the sender's process, in order, for the reader."""
    started = time.monotonic()
    for n in range(64):
        inbox.put(f"{n}:" + "x" * 65_536)
    assert time.monotonic() - started < 10  # returned, not blocked on a full pipe (a hang fails here)
    got = drain(inbox, 64)
    assert [text.split(":")[0] for text in got] == [str(n) for n in range(64)]


def exit_after_sending(inbox: FifoInbox) -> None:
    for n in range(40):
        inbox.put(f"{n}:" + "y" * 50_000)
    # returns at once: multiprocessing's exit runs the finalizers, which write what is waiting


def test_what_a_process_sent_just_before_it_exits_still_arrives(inbox):
    """2 MB cannot be in the 64 KB pipe when the sender ends: its exit writes the rest first."""
    ctx = multiprocessing.get_context("forkserver")
    sender = ctx.Process(target=exit_after_sending, args=(inbox,))
    sender.start()
    got = drain(inbox, 40)
    sender.join(30)
    assert sender.exitcode == 0
    assert [text.split(":")[0] for text in got] == [str(n) for n in range(40)]


def test_a_message_over_the_limit_is_cut_and_handed_over_as_bytes_and_the_next_arrives(tmp_path):
    small = FifoInbox(str(tmp_path / "small"), 10_000, make=True)
    try:
        small.put("z" * 30_000)
        small.put("after")
        first, second = drain(small, 2)
        assert isinstance(first, bytes) and len(first) == 10_001  # the receiver refuses it as too large
        assert second == "after"
    finally:
        small.close(flush_seconds=1)


def test_text_and_bytes_keep_their_kind(inbox):
    inbox.put("text \ud800 with a lone surrogate")
    inbox.put(b"\xff\xfe raw")
    inbox.put("")
    assert drain(inbox, 3) == ["text \ud800 with a lone surrogate", b"\xff\xfe raw", ""]
    with pytest.raises(TypeError, match="text or bytes"):
        inbox.put({"a": 1})  # type: ignore[arg-type]


def test_an_empty_inbox_answers_empty_after_its_timeout(inbox):
    started = time.monotonic()
    with pytest.raises(queue.Empty):
        inbox.get(timeout=0.3)
    assert time.monotonic() - started >= 0.25
    with pytest.raises(queue.Empty):
        inbox.get_nowait()


def test_an_inbox_pickles_as_its_path_and_holds_nothing_open(inbox):
    copy = pickle.loads(pickle.dumps(inbox))
    assert copy.path == inbox.path and copy._keeper is None and copy._writer is None
    team = LocalTransport(num_agents=64)
    try:
        state = team.__getstate__()
        assert state["_inbox_folder"] is None  # a child's copy removes nothing
        assert len(pickle.dumps(state["queues"])) < 64 * 200  # 64 paths, not 64 queues' pipes and locks
    finally:
        team.close()


def child_copy(transport: LocalTransport) -> LocalTransport:
    """`transport` as an agent process unpickles it (its shared counters are inherited, not pickled)."""
    state = transport.__getstate__()
    state["queues"] = pickle.loads(pickle.dumps(state["queues"]))
    copy = LocalTransport.__new__(LocalTransport)
    copy.__dict__.update(state)
    return copy


def test_an_inbox_whose_team_ended_is_a_clear_error(tmp_path):
    transport = LocalTransport(num_agents=2)
    folder = transport._inbox_folder
    assert folder is not None and os.path.isdir(folder)
    transport.close()
    assert not os.path.exists(folder)  # the maker removes its folder
    late = FifoInbox(os.path.join(folder, "1"), LIMIT)
    with pytest.raises(InboxGoneError, match="is gone"):
        late.put("anyone?")
    team = LocalTransport(num_agents=2)
    try:
        child_view = child_copy(team)
        os.unlink(child_view.queues[1].path)
        with pytest.raises(PeerGoneError, match="agent 1's inbox is gone"):
            child_view.send(Message(sender=0, recipient=1, body="anyone?"))
        assert child_view.pending(1, 0) == (0, 0)  # the quota charged for it is given back
    finally:
        team.close()


def test_a_path_that_is_not_a_fifo_is_refused(tmp_path):
    plain = tmp_path / "plain"
    plain.write_text("")
    with pytest.raises(InboxGoneError, match="not a FIFO"):
        FifoInbox(str(plain), LIMIT).put("x")


def test_two_threads_receiving_from_one_inbox_share_its_messages_without_loss(inbox):
    """An abandoned receive (its tool call timed out) may still read while the next one starts. The
    window where two readers would interleave their reassembly without the reader's lock is too
    narrow to force here: this guards the shared path (no message lost, none twice, none garbled)."""
    import threading

    got: list[str | bytes] = []
    lock = threading.Lock()

    def receive() -> None:
        while True:
            try:
                message = inbox.get(timeout=2.0)
            except queue.Empty:
                return
            with lock:
                got.append(message)

    readers = [threading.Thread(target=receive) for _ in range(2)]
    for reader in readers:
        reader.start()
    for n in range(500):
        inbox.put(f"{n}:" + "m" * (n % 9000))  # some of several chunks
    for reader in readers:
        reader.join(30)
    assert sorted(int(str(text).split(":")[0]) for text in got) == list(range(500))
    assert all(
        isinstance(text, str) and text.endswith("m" * (int(text.split(":")[0]) % 9000)) for text in got
    )


def test_chunks_under_many_made_up_writers_are_bounded_and_the_next_message_arrives(inbox):
    """A chunk's header names its writer, but whoever writes the pipe writes the header: a writer
    that opens messages under hundreds of pids it made up holds at most `_MAX_PARTIAL` of them in
    the reader; the oldest are cut (handed over garbled, which the receiver refuses)."""
    from smol_core.teams import fifo_inbox

    raw = os.open(inbox.path, os.O_WRONLY | os.O_NONBLOCK)
    try:
        for fake in range(1, 301):
            os.write(raw, fifo_inbox._HEADER.pack(fake, 1000, 0) + b"p" * 1000)  # a first chunk, never a last
            if fake % 50 == 0:
                with pytest.raises(queue.Empty):
                    while True:
                        inbox.get_nowait()  # drain what was cut so far: the pipe holds 64 KB
    finally:
        os.close(raw)
    inbox.put("after")
    got = drain(inbox, 1)
    while got and got[-1] != "after":
        got += drain(inbox, 1, timeout=2)
    assert got[-1] == "after"
    assert len(inbox._reader.partial) <= fifo_inbox._MAX_PARTIAL
    assert all(isinstance(item, bytes) for item in got[:-1])  # the cut ones: never text


def test_a_writer_that_died_mid_message_does_not_swallow_a_later_writers_message(inbox):
    """A dead writer's half-sent message stays in the reader. A chunk named its writer by pid, and a
    pid is reused: the next process to get it had its message glued to the dead one's half. Writers
    are named by a random id now: here the half is under this very process's pid."""
    from smol_core.teams import fifo_inbox

    raw = os.open(inbox.path, os.O_WRONLY | os.O_NONBLOCK)
    try:
        os.write(raw, fifo_inbox._HEADER.pack(os.getpid(), 5, 0) + b"half-")  # never a last chunk
    finally:
        os.close(raw)
    inbox.put("whole")
    assert drain(inbox, 1) == ["whole"]


def test_a_forked_child_writes_under_its_own_id_beside_its_parent(inbox):
    """A child forked after its parent wrote to an inbox does not share the parent's writer (its id,
    its descriptor, its flusher): both messages arrive whole, many chunks each."""
    big = "x" * (3 * select.PIPE_BUF)
    inbox.put("parent:" + big)
    pid = os.fork()
    if pid == 0:  # the child
        try:
            inbox.put("child:" + big)
            inbox.close()
        finally:
            os._exit(0)
    inbox.put("parent again:" + big)
    os.waitpid(pid, 0)
    got = drain(inbox, 3)
    assert sorted(text.split(":")[0] for text in got) == ["child", "parent", "parent again"]
    assert all(text.endswith(big) for text in got)


@pytest.fixture
def journaled(tmp_path: Path):
    made = FifoInbox(str(tmp_path / "inbox"), 1 << 20, make=True, journal=True)
    yield made
    made.close()


def _reader_of(inbox: FifoInbox) -> FifoInbox:
    """A new process's view of the inbox (as an agent started again gets it): its path, pickled."""
    return pickle.loads(pickle.dumps(inbox))


def test_a_journaled_inbox_gives_a_new_reader_what_the_dead_one_took_and_never_settled(journaled):
    big = "b" * (2 * select.PIPE_BUF)
    for text in ("one", big, "three"):
        journaled.put(text)
    first = _reader_of(journaled)
    assert drain(first, 2) == ["one", big]  # "three" is read too, and held: nobody asked for it yet
    # the reader's process dies here, with all three taken from the pipe
    second = _reader_of(journaled)
    journaled.put("four")
    assert drain(second, 4) == ["one", big, "three", "four"]


def test_a_settled_journal_gives_nothing_again(journaled):
    journaled.put("one")
    first = _reader_of(journaled)
    assert drain(first, 1) == ["one"]
    first.settle()
    assert os.path.getsize(journaled.path + ".taken") == 0
    journaled.put("two")
    assert drain(_reader_of(journaled), 1) == ["two"]


def test_a_journal_is_not_emptied_while_the_reader_holds_part_of_a_message(journaled):
    from smol_core.teams import fifo_inbox

    raw = os.open(journaled.path, os.O_WRONLY | os.O_NONBLOCK)
    try:
        os.write(raw, fifo_inbox._HEADER.pack(7, 6, 0) + b"first ")  # a message's first chunk
        first = _reader_of(journaled)
        with pytest.raises(queue.Empty):
            first.get(timeout=0.2)
        first.settle()  # nothing whole was handed over, but half a message is held: kept
        os.write(raw, fifo_inbox._HEADER.pack(7, 4, fifo_inbox._LAST) + b"half")
    finally:
        os.close(raw)
    assert drain(_reader_of(journaled), 1) == ["first half"]


def test_an_inbox_without_a_journal_writes_none(inbox):
    inbox.put("one")
    assert drain(inbox, 1) == ["one"]
    assert not os.path.exists(inbox.path + ".taken")


def test_a_journal_under_a_steady_stream_is_rewritten_to_what_the_reader_still_holds(journaled, monkeypatch):
    """A reader that always has more read ahead is never empty when it settles: past the size
    bound its journal is rewritten to the messages and part-message it still holds, and a new
    reader gets exactly those (the half message completed from the pipe)."""
    from smol_core.teams import fifo_inbox

    monkeypatch.setattr(fifo_inbox, "JOURNAL_COMPACT_BYTES", 1000)
    for n in range(40):
        journaled.put(f"m{n}:" + "x" * 100)
    reader = _reader_of(journaled)
    assert [text.split(":")[0] for text in drain(reader, 30)] == [f"m{n}" for n in range(30)]
    raw = os.open(journaled.path, os.O_WRONLY | os.O_NONBLOCK)
    try:
        os.write(raw, fifo_inbox._HEADER.pack(7, 6, 0) + b"first ")
        with pytest.raises(queue.Empty):
            while True:
                reader.get_nowait()  # the ten left are handed over; the half is held
    finally:
        os.close(raw)
    journal = Path(journaled.path + ".taken")
    before = journal.stat().st_size
    reader._reader.ready.extend(["kept-1", "kept-2"])  # two read ahead, not handed over yet
    reader.settle()
    assert journal.stat().st_size < before
    raw = os.open(journaled.path, os.O_WRONLY | os.O_NONBLOCK)
    try:
        os.write(raw, fifo_inbox._HEADER.pack(7, 4, fifo_inbox._LAST) + b"half")
    finally:
        os.close(raw)
    assert drain(_reader_of(journaled), 3) == ["kept-1", "kept-2", "first half"]
