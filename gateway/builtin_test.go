package gateway_test

import _ "github.com/farebox/farebox/builtin" // the schemes and settlers the gateway's tests configure
