package ringside

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
)

// NewToken returns a fresh secret: 32 random bytes, URL-safe base64. Tokens
// (the admin token, invite tokens) are shown once and stored only as
// HashToken's digest.
func NewToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return base64.RawURLEncoding.EncodeToString(b)
}

// HashToken is the stored form of a token. A plain SHA-256 is enough: the
// tokens are 256 random bits, so there is nothing to brute-force.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}
