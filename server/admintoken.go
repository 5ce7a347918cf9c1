package server

import (
	"context"

	"github.com/ringside-eval/ringside"
	"github.com/ringside-eval/ringside/store"
)

// EnsureAdminToken makes sure the database holds an admin token's hash. A
// token from the environment (fromEnv) always wins and is stored; otherwise
// a token is generated on first start only. It returns the token when it
// generated one, so the caller can print it once; "" otherwise.
func EnsureAdminToken(ctx context.Context, db *store.DB, fromEnv string) (string, error) {
	if fromEnv != "" {
		return "", db.SetSetting(ctx, AdminTokenKey, ringside.HashToken(fromEnv))
	}
	token := ringside.NewToken()
	stored, err := db.SetSettingIfAbsent(ctx, AdminTokenKey, ringside.HashToken(token))
	if err != nil || !stored {
		return "", err
	}
	return token, nil
}
