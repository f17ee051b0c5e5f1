"""The public names renamed in this release still work for one release, with
a ``DeprecationWarning`` that names the new one (the shims that keep them are the only
place the old names exist)."""

from __future__ import annotations

import importlib
import warnings

import pytest

import conformance
from conformance import vocabulary
from conformance._renamed import forget_warnings
from conformance.wires import context

SHIMS = [
    ("conformance.model", vocabulary, "Message"),
    ("conformance.wires.base", context, "RenderContext"),
]


@pytest.mark.parametrize(("old", "new", "name"), SHIMS, ids=[s[0] for s in SHIMS])
def test_an_old_module_name_warns_once_and_forwards(old: str, new: object, name: str) -> None:
    forget_warnings()
    shim = importlib.import_module(old)
    with pytest.warns(DeprecationWarning, match=getattr(new, "__name__", "")):
        forwarded = getattr(shim, name)
    assert forwarded is getattr(new, name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert getattr(shim, name) is forwarded


def test_the_old_case_brief_name_warns_and_is_the_case_brief() -> None:
    forget_warnings()
    with pytest.warns(DeprecationWarning, match="CaseBrief"):
        old = conformance.Session
    assert old is conformance.CaseBrief


def test_an_unknown_name_is_still_an_attribute_error() -> None:
    with pytest.raises(AttributeError):
        _ = conformance.NoSuchName


def test_a_conversations_old_session_field_warns_and_is_its_brief() -> None:
    forget_warnings()
    from conformance.vocabulary import ThinkingConfig

    brief = conformance.CaseBrief("c", "gemini", None, "m", None, ("hi",), (), ThinkingConfig(), 8)
    conversation = conformance.Conversation(brief=brief, base_url="http://127.0.0.1:1")
    with pytest.warns(DeprecationWarning, match="Conversation.brief"):
        assert conversation.session is brief


def test_the_old_contract_reader_name_warns_and_is_the_brief_reader() -> None:
    forget_warnings()
    from conformance.agent import runner

    with pytest.warns(DeprecationWarning, match="brief_from_contract"):
        old = runner.session_from_contract
    assert old is runner.brief_from_contract
    with pytest.raises(AttributeError):
        _ = runner.no_such_reader
