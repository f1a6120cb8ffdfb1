package main

import _ "github.com/farebox/farebox/builtin" // every built-in implementation, registered by kind
