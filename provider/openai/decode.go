package openai

import (
	"encoding/json"
	"errors"
	"io"
	"strconv"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/provider/internal/stream"
)

// chunk is one "data:" event of a chat-completions stream. Usage comes in a
// last chunk with no choices when stream_options.include_usage is set (some
// servers send it on every chunk; the last one wins).
type chunk struct {
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content          string `json:"content"`
			Refusal          string `json:"refusal"`
			ReasoningContent string `json:"reasoning_content"`
			Reasoning        string `json:"reasoning"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// decode reads a chat-completions event stream into out.
func decode(events *stream.SSEReader, out *stream.Output) error {
	for {
		ev, err := events.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if ev.Data == "[DONE]" {
			out.End()
			return nil
		}
		if ev.Data == "" {
			continue
		}
		var c chunk
		if err := json.Unmarshal([]byte(ev.Data), &c); err != nil {
			return stream.Errorf(ringside.ErrKindBadResponse, "malformed chunk: %v", err)
		}
		if isError(c.Error) || ev.Name == "error" {
			msg, typ, status := parseError([]byte(ev.Data))
			if msg == "" {
				msg = "the server reported an error mid-stream"
			}
			return stream.Errorf(stream.KindForAPIError(typ, status), "%s", stream.Clip(msg, 500))
		}
		if c.Usage != nil {
			out.InputTokens(c.Usage.PromptTokens)
			out.OutputTokens(c.Usage.CompletionTokens)
		}
		out.Alive()
		for _, ch := range c.Choices {
			if ch.Index != 0 {
				continue // ringside asks for one choice; ignore any others
			}
			if r := ch.Delta.ReasoningContent + ch.Delta.Reasoning; r != "" {
				out.Reasoning(r)
			}
			// A refusal is what the model said to the user, so it is answer
			// text like any other.
			out.Text(ch.Delta.Content + ch.Delta.Refusal)
			if ch.FinishReason != nil {
				out.Finish(*ch.FinishReason)
			}
		}
	}
}

func isError(raw json.RawMessage) bool {
	return len(raw) > 0 && string(raw) != "null"
}

// parseError reads an error body in the shapes OpenAI-compatible servers
// use: {"error": {"message", "type", "code"}} (OpenAI, vLLM, llama.cpp),
// {"error": "text"} (some Ollama versions), or {"message": ...}.
func parseError(body []byte) (message, typ string, status int) {
	var b struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &b) != nil {
		return stream.Clip(string(body), 200), "", 0
	}
	if !isError(b.Error) {
		return b.Message, "", 0
	}
	var s string
	if json.Unmarshal(b.Error, &s) == nil {
		return s, "", 0
	}
	var e struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Code    json.RawMessage `json:"code"`
	}
	if json.Unmarshal(b.Error, &e) != nil {
		return "", "", 0
	}
	// "code" is a number on some servers (vLLM: 400) and a string on others
	// (OpenAI: "rate_limit_exceeded").
	var code string
	if json.Unmarshal(e.Code, &code) != nil {
		code = string(e.Code)
	}
	if n, err := strconv.Atoi(code); err == nil {
		status = n
		code = ""
	}
	typ = e.Type
	if code != "" && code != "null" {
		typ += " " + code
	}
	return e.Message, typ, status
}
