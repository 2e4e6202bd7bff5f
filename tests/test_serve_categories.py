"""The server's one category type: Lichess's names and order, each value's opposite."""
import json

from solver.serve.categories import Category


def test_categories_are_lichess_names_in_lichess_order():
    assert [category.value for category in sorted(Category, key=lambda c: c.rank)] == [
        "loss", "unknown", "syzygy-loss", "maybe-loss", "blessed-loss", "draw", "cursed-win", "maybe-win",
        "syzygy-win", "win"]
    assert json.dumps({"category": Category.CURSED_WIN}) == '{"category": "cursed-win"}'
    assert Category("maybe-loss") is Category.MAYBE_LOSS


def test_the_opposite_swaps_the_sides_and_twice_is_the_same():
    assert Category.WIN.opposite() is Category.LOSS
    assert Category.CURSED_WIN.opposite() is Category.BLESSED_LOSS
    assert Category.MAYBE_WIN.opposite() is Category.MAYBE_LOSS
    assert Category.SYZYGY_LOSS.opposite() is Category.SYZYGY_WIN
    assert Category.DRAW.opposite() is Category.DRAW and Category.UNKNOWN.opposite() is Category.UNKNOWN
    for category in Category:
        assert category.opposite().opposite() is category
        assert category.is_positive == (category.opposite().rank < Category.DRAW.rank
                                        and category is not Category.UNKNOWN)
