// Package ringside is the domain of a pairwise A/B arena for language models:
// the vocabulary (models, prompts, generations, battles, votes, judges, runs)
// and the error codes every other package speaks. It imports nothing of the
// project and only the standard library.
package ringside

import (
	"errors"
	"fmt"
)

// Error codes. Every package returns errors carrying one of these so that the
// HTTP layer and the CLI can map them to a status or an exit code in one place.
const (
	EINVALID      = "invalid"      // bad input from the user; the message says which field
	ENOTFOUND     = "not_found"    // the thing asked for does not exist
	ECONFLICT     = "conflict"     // the request clashes with stored state (e.g. a second vote)
	EUNAUTHORIZED = "unauthorized" // missing, unknown or revoked token
	EINTERNAL     = "internal"     // a bug or an outside failure; its text is logged, never shown
)

// Error is a domain error: a code, a message safe to show to the user, and the
// field at fault when there is one.
type Error struct {
	Code    string
	Field   string
	Message string
}

func (e *Error) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("ringside: %s: %s: %s", e.Code, e.Field, e.Message)
	}
	return fmt.Sprintf("ringside: %s: %s", e.Code, e.Message)
}

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// FieldError returns an EINVALID error that names the field at fault.
func FieldError(field, format string, args ...any) *Error {
	return &Error{Code: EINVALID, Field: field, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL for
// any other non-nil error, and "" for nil.
func ErrorCode(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the user-facing message of err. Internal errors get a
// generic text so that their details (paths, SQL) never reach a user.
func ErrorMessage(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		if e.Field != "" {
			return e.Field + ": " + e.Message
		}
		return e.Message
	}
	return "internal error"
}
