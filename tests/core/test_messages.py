from smol_core.messages import (
    ChatMessage,
    ChatMessageStreamDelta,
    ChatMessageToolCallFunction,
    ChatMessageToolCallStreamDelta,
    MessageRole,
    TokenUsage,
    agglomerate_stream_deltas,
    remove_content_after_stop_sequences,
)


def test_chat_message_round_trip_and_text():
    message = ChatMessage(
        "assistant",
        [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
        tool_calls=[{"id": "1", "type": "function", "function": {"name": "f", "arguments": {"x": 1}}}],
        token_usage=TokenUsage(3, 4),
    )
    assert message.role is MessageRole.ASSISTANT
    assert message.text == "ab"
    assert message.tool_calls[0].function.name == "f"
    again = ChatMessage.from_dict(message.dict())
    assert again.tool_calls[0].function.arguments == {"x": 1}
    assert again.token_usage.total_tokens == 7
    assert "raw" not in message.dict()


def test_agglomerate_stream_deltas_joins_text_calls_and_usage():
    deltas = [
        ChatMessageStreamDelta(content="Hel"),
        ChatMessageStreamDelta(content="lo", token_usage=TokenUsage(1, 1)),
        ChatMessageStreamDelta(
            tool_calls=[
                ChatMessageToolCallStreamDelta(
                    0, "c1", "function", ChatMessageToolCallFunction("se", '{"q":')
                )
            ]
        ),
        ChatMessageStreamDelta(
            tool_calls=[
                ChatMessageToolCallStreamDelta(0, None, None, ChatMessageToolCallFunction("arch", ' "x"}'))
            ]
        ),
        ChatMessageStreamDelta(token_usage=TokenUsage(2, 3)),
    ]
    message = agglomerate_stream_deltas(deltas)
    assert message.content == "Hello"
    assert message.tool_calls[0].function.name == "search"
    assert message.tool_calls[0].function.arguments == '{"q": "x"}'
    assert message.token_usage == TokenUsage(3, 4)


def test_stop_sequences_cut_at_the_first():
    assert remove_content_after_stop_sequences("a<end>b<stop>c", ["<stop>", "<end>"]) == "a"
    assert remove_content_after_stop_sequences("abc", None) == "abc"
