package golang_test

import (
	"errors"
	"fmt"
	"strings"
	"testing/fstest"

	"github.com/jobgen/jobgen/gen"
	"github.com/jobgen/jobgen/gen/golang"
)

// A small spec is read, validated and emitted as the Go package jobgen
// generate would write, in memory. GenerateFS reads the spec's sources (it
// has none) from a file system rooted at its directory; Generate reads them
// from the spec file's directory.
func ExampleGenerateFS() {
	spec := []byte(`jobgen: 1
package:
  name: shop
enums:
  OrderState:
    doc: An OrderState is where an order is.
    values:
      open: {}
      shipped: {}
`)
	files, err := golang.GenerateFS(fstest.MapFS{}, "spec/shop.yaml", spec)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range files {
		fmt.Println(f.Path)
		if strings.HasSuffix(f.Path, "enums.gen.go") {
			for line := range strings.Lines(string(f.Content)) {
				if strings.Contains(line, "OrderState = ") {
					fmt.Println("\t" + strings.TrimSpace(line))
				}
			}
		}
	}
	// Output:
	// shop/doc.gen.go
	// shop/codec.gen.go
	// shop/enums.gen.go
	// 	OrderStateOpen    OrderState = "open"
	// 	OrderStateShipped OrderState = "shipped"
}

// Validation reports every problem at once, each at its position, as an
// ErrorList; jobgen check prints one per line.
func ExampleGenerateFS_errors() {
	_, err := golang.GenerateFS(fstest.MapFS{}, "spec/shop.yaml", []byte(`jobgen: 1
package:
  name: shop
records:
  Order:
    fields:
      state: OrderStat
      total: {type: int64, optionl: true}
`))
	var list gen.ErrorList
	if errors.As(err, &list) {
		for _, e := range list {
			fmt.Println(e)
		}
	}
	// Output:
	// spec/shop.yaml:7:14: undeclared type OrderStat
	// spec/shop.yaml:8:28: records.Order.fields.total: unknown key optionl; did you mean optional?
}
