package scripted

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/farebox/farebox/responses"
)

func BenchmarkArgumentsWeather(b *testing.B) {
	schema := json.RawMessage(argumentSchemas[0].schema)
	for b.Loop() {
		Arguments(schema)
	}
}

func BenchmarkRespond(b *testing.B) {
	bodies := map[string]string{
		"text":  `{"model":"m","input":"Hello there, how are you today?"}`,
		"calls": `{"model":"m","tools":` + threeTools + `,"input":"get_weather and search"}`,
	}
	for name, body := range bodies {
		b.Run(name, func(b *testing.B) {
			req, perr := responses.Parse([]byte(body))
			if perr != nil {
				b.Fatal(perr.Message)
			}
			m := New(Options{})
			b.ReportAllocs()
			for b.Loop() {
				em := responses.NewEmitter(req, responses.Discard{}, responses.EmitterOptions{})
				if err := m.Respond(context.Background(), req, em); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
