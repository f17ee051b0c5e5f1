"""Bytes in a JSON recording: UTF-8 text when the bytes are text, else base64.

A recorded chunk may end inside a multi-byte character (a socket read splits where it
splits), so a chunk that is not valid UTF-8 on its own is kept as ``{"base64": ...}``.
"""

from __future__ import annotations

import base64
import binascii
from typing import Annotated, TypeAlias

from pydantic import Field, field_validator

from conformance.vocabulary import StrictModel


class Base64(StrictModel):
    """Bytes that are not UTF-8 text, base64-encoded."""

    base64: str

    @field_validator("base64")
    @classmethod
    def _decodes(cls, value: str) -> str:
        try:
            base64.b64decode(value, validate=True)
        except binascii.Error as error:
            raise ValueError(f"not base64: {error}") from None
        return value


Blob: TypeAlias = Annotated[
    str | Base64, Field(description="UTF-8 text, or {base64: ...} for other bytes.")
]


def to_blob(data: bytes) -> str | Base64:
    """``data`` as text when it decodes, else base64."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return Base64(base64=base64.b64encode(data).decode("ascii"))


def from_blob(blob: str | Base64) -> bytes:
    """The bytes a blob holds."""
    if isinstance(blob, Base64):
        return base64.b64decode(blob.base64)
    return blob.encode("utf-8")
