module github.com/farebox/farebox

go 1.26.8

require github.com/ethereum/go-ethereum v1.17.10

require (
	github.com/holiman/uint256 v1.3.2 // indirect
	golang.org/x/sys v0.48.0 // indirect
)
