package main

// The upstream kinds farebox's configs may name, linked here, in the
// composition root, so that the gateway names none of them.
import _ "github.com/farebox/farebox/builtin"
