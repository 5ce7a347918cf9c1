package anthropic

import (
	"encoding/json"
	"errors"
	"io"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/provider/internal/stream"
)

// event is one event of a Messages stream; which fields are set depends on
// its type.
type event struct {
	Type    string `json:"type"`
	Message *struct {
		Usage usage `json:"usage"`
	} `json:"message"`
	Delta *struct {
		Type       string `json:"type"`
		Text       string `json:"text"`
		Thinking   string `json:"thinking"`
		StopReason string `json:"stop_reason"`
	} `json:"delta"`
	Usage *usage   `json:"usage"`
	Error apiError `json:"error"`
}

type usage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             *int `json:"output_tokens"`
	CacheCreationInputTokens int  `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int  `json:"cache_read_input_tokens"`
}

// input counts every input token, cached or not: they are all the prompt,
// and all billed.
func (u usage) input() int {
	return *u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
}

type apiError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// decode reads a Messages event stream into out.
func decode(events *stream.SSEReader, out *stream.Output) error {
	for {
		ev, err := events.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if ev.Data == "" {
			continue
		}
		var e event
		if err := json.Unmarshal([]byte(ev.Data), &e); err != nil {
			return stream.Errorf(ringside.ErrKindBadResponse, "malformed event: %v", err)
		}
		if e.Type == "" {
			e.Type = ev.Name
		}
		switch e.Type {
		case "ping":
			// A keep-alive says the connection is open, not that the model
			// is producing; it must not hold off the stall watchdog.
		case "message_start":
			if e.Message != nil && e.Message.Usage.InputTokens != nil {
				out.InputTokens(e.Message.Usage.input())
			}
			out.Alive()
		case "content_block_delta":
			if e.Delta == nil {
				out.Alive()
				continue
			}
			switch e.Delta.Type {
			case "text_delta":
				out.Text(e.Delta.Text)
			case "thinking_delta":
				out.Reasoning(e.Delta.Thinking)
			default: // signature_delta, input_json_delta, ...
				out.Alive()
			}
		case "message_delta":
			if e.Delta != nil {
				out.Finish(finishReason(e.Delta.StopReason))
			}
			if e.Usage != nil {
				if e.Usage.OutputTokens != nil {
					out.OutputTokens(*e.Usage.OutputTokens)
				}
				if e.Usage.InputTokens != nil {
					out.InputTokens(e.Usage.input())
				}
			}
			out.Alive()
		case "message_stop":
			out.End()
			return nil
		case "error":
			msg := e.Error.Message
			if msg == "" {
				msg = "the server reported an error mid-stream"
			}
			return stream.Errorf(stream.KindForAPIError(e.Error.Type, 0), "%s: %s", e.Error.Type, stream.Clip(msg, 500))
		default: // content_block_start, content_block_stop, and types to come
			out.Alive()
		}
	}
}

// finishReason maps a stop_reason to OpenAI's vocabulary.
func finishReason(r string) string {
	switch r {
	case "end_turn", "stop_sequence":
		return "stop"
	case "max_tokens":
		return "length"
	case "tool_use":
		return "tool_calls"
	case "refusal":
		return "content_filter"
	}
	return r
}

// parseError reads an error body: {"type": "error", "error": {"type",
// "message"}}.
func parseError(body []byte) (message, typ string, status int) {
	var b struct {
		Error apiError `json:"error"`
	}
	if json.Unmarshal(body, &b) != nil {
		return stream.Clip(string(body), 200), "", 0
	}
	return b.Error.Message, b.Error.Type, 0
}
