package facilitator

import (
	"strings"
	"testing"
)

func TestClientMessageIsShortAndOneLine(t *testing.T) {
	long := "ContractFunctionExecutionError: The contract function \"transferWithAuthorization\" reverted.\n\nContract Call:\n  address: 0x..." + strings.Repeat("é", 300)
	if got := clientMessage(long, "def"); got != `ContractFunctionExecutionError: The contract function "transferWithAuthorization" reverted.` {
		t.Errorf("%q", got)
	}
	if got := clientMessage(strings.Repeat("é", 300), "def"); len(got) > 203 || !strings.HasSuffix(got, "...") || !strings.HasPrefix(got, "é") {
		t.Errorf("%q", got)
	}
	if got := clientMessage(" \n detail", "def"); got != "def" {
		t.Errorf("%q", got)
	}
}
