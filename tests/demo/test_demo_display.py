"""The demo's status table, on a terminal and in a file.

Aspects covered:
- on a terminal the table stays under the lines told: each line told erases it and draws it
  again below; a changed table is redrawn in place, an unchanged one is not;
- once the story is over (`close`) the table stays as it is and the lines told afterwards
  (stopping, where things are) are not followed by it again, so it is on the screen once;
- in a file the table is written whole at the end of each step only, and not after `close`.
"""

from __future__ import annotations

import io

from gitfleet.demo import _display

TABLE = ["rendered abc: render", "CLUSTER  READY", "m1       True"]
DRAWN = "".join(line + "\n" for line in TABLE)
ERASE = _display.UP_AND_CLEAR.format(n=len(TABLE))


def test_on_a_terminal_the_table_follows_the_lines_told() -> None:
    stream = io.StringIO()
    display = _display.Display(stream, live=True)
    display.say("one")
    display.table(TABLE)
    display.table(TABLE)
    display.say("two")
    assert stream.getvalue() == "one\n" + DRAWN + ERASE + "two\n" + DRAWN


def test_on_a_terminal_the_final_table_is_shown_once() -> None:
    stream = io.StringIO()
    display = _display.Display(stream, live=True)
    display.table(TABLE)
    display.close()
    display.say("stopping")
    display.say("where things are")
    assert stream.getvalue() == DRAWN + "stopping\nwhere things are\n"


def test_in_a_file_the_table_is_written_at_each_step() -> None:
    stream = io.StringIO()
    display = _display.Display(stream, live=False)
    display.say("one")
    display.table(TABLE)
    display.table([*TABLE[:2], "m1       False"])
    display.settle()
    display.close()
    display.say("stopping")
    display.settle()
    indented = "".join(f"  {line}\n" for line in TABLE).replace("True", "False")
    assert stream.getvalue() == "one\n" + indented + "stopping\n"
