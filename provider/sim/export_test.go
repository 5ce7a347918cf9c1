package sim

// Internal helpers the external tests exercise directly.
var (
	LooksSpanish    = looksSpanish
	SpanishSentence = spanishSentence
)
