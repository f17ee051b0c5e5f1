"""A message item's content in neutral form, shared by the parse and the reader."""

from __future__ import annotations

from conformance.vocabulary import ContentBlock, Media, Text
from conformance.wires import _values as values


def message_blocks(content: object, at: str) -> list[tuple[ContentBlock, str]]:
    """A message item's content in neutral form, each block with its location."""
    if isinstance(content, str):
        return [(Text(text=content), f"{at}.content")] if content else []
    found: list[tuple[ContentBlock, str]] = []
    for j, part in enumerate(content if isinstance(content, list) else []):
        if not isinstance(part, dict):
            continue
        kind = part.get("type")
        where = f"{at}.content[{j}]"
        if kind in ("input_text", "output_text", "text"):
            found.append((Text(text=values.text(part.get("text"))), where))
        elif kind == "refusal":
            found.append((Text(text=values.text(part.get("refusal"))), where))
        elif kind == "input_image":
            media = _data_url(part.get("image_url"))
            if media is not None:
                found.append((media, where))
    return found


def _data_url(value: object) -> Media | None:
    """An inline ``data:<mime>;base64,<data>`` image as a media block."""
    if not isinstance(value, str) or not value.startswith("data:"):
        return None
    head, _, data = value[len("data:") :].partition(",")
    mime, _, encoding = head.partition(";")
    return Media(mime=mime, data=data) if encoding == "base64" else None
