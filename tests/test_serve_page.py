"""The page of `solver serve` in a real browser: Chromium driven by Playwright.

Skipped, with the reason, where no Chromium is installed (Debian: ``apt-get install
chromium``; or ``python -m playwright install chromium``); ``SOLVER_CHROMIUM`` names another
binary. The server runs in a thread of this process on the tables of ``pawn_db``.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from solver.serve.app import ServeSettings, serving_in_thread

# Without the background-networking flags Chromium keeps trying to reach Google's hosts.
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]


def chromium_binary() -> str | None:
    """The system's Chromium, or None."""
    named = os.environ.get("SOLVER_CHROMIUM")
    if named:
        return named if Path(named).is_file() else None
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


@pytest.fixture(scope="module")
def page(pawn_db, tmp_path_factory):
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    binary = chromium_binary()
    if binary is None:
        pytest.skip("no Chromium installed (apt-get install chromium, or set SOLVER_CHROMIUM)")
    settings = ServeSettings(db=pawn_db, proof_dir=tmp_path_factory.mktemp("proofs"))
    with serving_in_thread(settings) as url, sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=binary, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page()
            page.set_default_timeout(60_000)
            page.goto(url + "/")
            yield page
        finally:
            browser.close()


def move_rows(page):
    page.wait_for_selector("#moves tbody tr")
    return page.locator("#moves tbody tr")


def test_the_chess_board_shows_the_position_and_its_moves(page):
    page.goto(page.url.split("?")[0] + "?game=chess&position=4k3/8/8/8/8/8/8/4KQ2 w - - 0 1")
    rows = move_rows(page)
    assert page.locator("#board .square").count() == 64
    assert page.locator('[data-square="f1"] .piece').inner_text() == "\u2655"  # the white queen
    page.wait_for_function("document.getElementById('summary').textContent.includes('win')")
    assert "DTZ 15" in page.inner_text("#summary") and "DTM 15" in page.inner_text("#summary")
    first = rows.first.locator("td")
    assert first.nth(1).inner_text() == "win"  # the side that moves wins
    # issue 74, item 5: its distances with its own sign (the answer's are the other side's)
    assert first.nth(2).inner_text() == "14" and int(first.nth(3).inner_text()) > 0
    assert "/standard?fen=" in page.get_attribute("#json-link", "href")


def test_playing_a_move_on_the_board_and_taking_it_back(page):
    page.goto(page.url.split("?")[0] + "?game=chess&position=4k3/8/8/8/8/8/8/4KQ2 w - - 0 1")
    move_rows(page)
    page.click('[data-square="f1"]')
    page.click('[data-square="f6"]')
    page.wait_for_function("document.getElementById('position').value.startsWith('4k3/8/5Q2/')")
    page.wait_for_function("document.querySelector('#moves tbody tr') !== null && "
                           "document.getElementById('summary').textContent.startsWith('Black')")
    assert "loss" in page.inner_text("#summary")
    page.click("#back")
    page.wait_for_function("document.getElementById('position').value.startsWith('4k3/8/8/')")


def test_clicking_a_move_in_the_list_plays_it(page):
    page.goto(page.url.split("?")[0] + "?game=chess&position=4k3/8/4K3/8/8/8/8/7Q w - - 0 1")
    rows = move_rows(page)
    assert rows.first.locator("td").first.inner_text() == "Qh8#"
    rows.first.click()
    page.wait_for_function("document.getElementById('summary').textContent.includes('checkmate')")


def test_connect_four_board_plays_a_column(page):
    page.click('#games button[data-game="connect4"]')
    page.wait_for_selector("#board .cell")
    assert page.locator("#board .cell").count() == 42
    page.fill("#position", "445566")
    page.click("#setup button")
    move_rows(page)
    page.wait_for_function("document.getElementById('summary').textContent.includes('win')")
    page.click('#board .cell[data-column="3"] >> nth=0')
    page.wait_for_function("document.getElementById('position').value === '4455663'")
    page.wait_for_function("document.getElementById('summary').textContent.includes('game over')")
    assert page.locator("#board .disc.x").count() == 4


def test_a_bad_position_is_one_line_on_the_page(page):
    page.click('#games button[data-game="chess"]')
    page.fill("#position", "not a fen")
    page.click("#setup button")
    page.wait_for_function("document.getElementById('error').textContent.includes('invalid fen')")


# --- issue 74, item 5: the page as a user reads it --------------------------------------------
def test_the_board_has_coordinates(page):
    page.goto(page.url.split("?")[0] + "?game=chess&position=4k3/8/8/8/8/8/8/4KQ2 w - - 0 1")
    move_rows(page)
    assert page.locator('[data-square="a1"] .coord.rank').inner_text() == "1"
    assert page.locator('[data-square="a1"] .coord.file').inner_text() == "a"
    assert page.locator('[data-square="h8"] .coord').count() == 0
    assert page.locator("#board .coord").count() == 16  # a1 has both


def test_a_bad_fen_keeps_the_board_it_had(page):
    page.goto(page.url.split("?")[0] + "?game=chess&position=4k3/8/8/8/8/8/8/4KQ2 w - - 0 1")
    move_rows(page)
    page.fill("#position", "4k3/8/8/8/8/8/8/4KQ2 w - - x 1")
    page.click("#setup button")
    page.wait_for_function("document.getElementById('error').textContent !== ''")
    assert page.locator("#board .square").count() == 64
    assert page.locator('[data-square="f1"] .piece').inner_text() == "\u2655"
    assert page.input_value("#position").endswith("x 1")  # left to be corrected
    box = page.locator("#board").bounding_box()
    assert box["width"] > 300 and box["height"] > 300


def test_a_bad_position_as_the_first_one_shows_the_start_board(page):
    page.goto(page.url.split("?")[0] + "?game=chess&position=garbage")
    page.wait_for_function("document.getElementById('error').textContent.includes('invalid fen')")
    assert page.locator("#board .square").count() == 64
    assert page.locator("#board .piece").count() == 3


def test_each_game_has_its_own_legend(page):
    page.click('#games button[data-game="connect4"]')
    page.wait_for_selector("#board .cell")
    assert page.is_visible('.legend[data-game="solved"]')
    assert not page.is_visible('.legend[data-game="chess"]')
    page.click('#games button[data-game="chess"]')
    page.wait_for_selector("#board .square")
    assert page.is_visible('.legend[data-game="chess"]')
    assert not page.is_visible('.legend[data-game="solved"]')


def test_a_position_set_up_by_placing_pieces(page):
    page.goto(page.url.split("?")[0] + "?game=chess")
    move_rows(page)
    page.click("#edit")
    page.click("#clear")
    assert page.locator("#board .piece").count() == 0
    for piece, square in (("K", "e1"), ("Q", "f1"), ("k", "e8")):
        page.click(f'#pieces button[data-piece="{piece}"]')
        page.click(f'[data-square="{square}"]')
    page.select_option("#side", "w")
    page.click("#edit")  # done
    page.wait_for_function("document.getElementById('position').value === '4k3/8/8/8/8/8/8/4KQ2 w - - 0 1'")
    page.wait_for_function("document.getElementById('summary').textContent.includes('win')")


def test_the_dtz_mainline_is_shown(page):
    page.goto(page.url.split("?")[0] + "?game=chess&position=4k3/8/8/8/8/8/8/4KQ2 w - - 0 1")
    move_rows(page)
    page.wait_for_function("document.getElementById('mainline').textContent.includes('White mates')")
    assert page.inner_text("#mainline").startswith("DTZ mainline: ")
