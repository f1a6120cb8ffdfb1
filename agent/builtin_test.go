package agent_test

import _ "github.com/farebox/farebox/builtin" // the schemes and settlers the gateway these tests start is configured with
