package ringside

// Version is the ringside release; builds may override it with
// -ldflags "-X github.com/ringside-eval/ringside.Version=...".
var Version = "0.1.0-dev"
