package gateway

// ChainConfig configures self-settlement.
type ChainConfig struct {
	RPCURL string `yaml:"rpc_url"`
	// RelayerKeyEnv names the environment variable holding the relayer's
	// private key (hex). Default FAREBOX_RELAYER_KEY.
	RelayerKeyEnv string `yaml:"relayer_key_env"`
	// RelayerKeystore is an encrypted go-ethereum v3 keystore file (what
	// `geth account new` and wallet tools write) holding the relayer key,
	// decrypted at start with the password in RelayerPasswordFile; when
	// set, relayer_key_env is not read.
	RelayerKeystore     string `yaml:"relayer_keystore"`
	RelayerPasswordFile string `yaml:"relayer_password_file"`
	// Simulate runs transferWithAuthorization as eth_call before the model
	// is called, so an unfunded or already-used authorization costs the
	// operator no upstream call. Default true (every payment) whenever
	// rpc_url is set (with either settler); false skips the round trip;
	// "payer" simulates a payer's payments until one passes, then skips
	// until one of its payments fails at settlement (the chain checker's PerPayer).
	Simulate SimulateMode `yaml:"simulate"`
	// Overlap runs that check (simulation, contract-wallet signature)
	// alongside the model instead of before it: the answer's first byte
	// still waits for it, and a refusal is a 402 with nothing written,
	// but the model has then run for a payer the chain refuses. Default
	// false.
	Overlap bool `yaml:"overlap"`
	// Confirmations is how many blocks must be on top of the one that
	// mined a settlement before it counts as confirmed (the chain settler).
	// Until then its receipt is read at every new head, and a settlement a
	// reorganisation took away is sent again as it was signed. With
	// settler: facilitator and rpc_url set, a facilitator's successful
	// settlement is followed the same way, and one taken away is sent to
	// the facilitator again (it pays in a new transaction). Default 0
	// (mined is final: a dev chain or anvil); on a mainnet choose the
	// deepest reorganisation to survive, e.g. 5 on Base, 12 on Ethereum.
	// A reorganisation deeper than this goes unnoticed.
	Confirmations int `yaml:"confirmations"`
}
