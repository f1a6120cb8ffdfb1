package payer_test

import (
	"testing"

	"github.com/farebox/farebox/x402/payer"
)

// TestSellerTextEscapesWhatATerminalWouldObey: invalid UTF-8 and control
// characters come out escaped, printable text as it was.
func TestSellerTextEscapesWhatATerminalWouldObey(t *testing.T) {
	if s := payer.SellerText("\xff\x00ok é"); s != `\xff\u0000ok é` {
		t.Errorf("SellerText = %q", s)
	}
}
