"""The wire's name and its request view: the neutral view plus the request's state fields.

Its own module because two modules need it: the parse builds these views, and the
provider's memory (``_state``), which the parse reads, keeps the views of the requests it
answered; in ``parse`` it would make an import cycle.
"""

from __future__ import annotations

from typing import Any

from conformance.wires.context import RequestView

NAME = "openai-responses"

#: The ``include`` value that makes reasoning items carry their ``encrypted_content``.
ENCRYPTED_CONTENT = "reasoning.encrypted_content"


class ResponsesRequestView(RequestView):
    """The neutral view plus what a Responses request says about state.

    ``items`` is the conversation as the provider sees it: the stored conversation a
    ``previous_response_id`` (or a ``conversation`` object) continues, then the body's
    ``input`` with every resolvable ``item_reference`` replaced by the stored item.
    """

    include: tuple[str, ...] = ()
    store: bool = True
    previous_response_id: str | None = None
    conversation: str | None = None
    items: tuple[Any, ...] = ()

    @property
    def encrypted(self) -> bool:
        """Whether reasoning items of the answer carry their ``encrypted_content``."""
        return ENCRYPTED_CONTENT in self.include
