"""Errors of a team's messaging.

Each says what went wrong in words a model can act on: a tool that raises one turns it into the
observation of that step ("agent 7 does not exist; agents are 0, 1"), so the run goes on.
"""

from __future__ import annotations

from smol_core.errors import SmolError


class MessagingError(SmolError):
    """A message could not be sent or received."""


class UnknownRecipientError(MessagingError, LookupError):
    """The recipient is not an agent of this team."""


class MessageTooLargeError(MessagingError, ValueError):
    """The encoded message is over the transport's size limit."""


class MessageRefusedError(MessagingError, ValueError):
    """What arrived (or what was to be sent) is not a well-formed message: wrong types, unknown fields,
    not JSON. Messages from other agents are untrusted input and are checked like worker frames."""


class PeerGoneError(MessagingError):
    """The recipient's process has ended: a message to it would never be read."""
