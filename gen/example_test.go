package gen_test

import (
	"errors"
	"fmt"
	"strings"
	"testing/fstest"

	"github.com/jobgen/jobgen/gen"
)

// A small spec is loaded and validated, then run through the Go backend in
// memory: the files jobgen generate would write, and a part of one. ParseFS
// reads the spec's sources (it has none) from a file system; Parse reads them
// from the spec file's directory.
func Example() {
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
	r, err := gen.ParseFS(fstest.MapFS{}, "spec/shop.yaml", spec)
	if err != nil {
		fmt.Println(err)
		return
	}
	tree, err := gen.Render([]gen.Target{{Backend: gen.GoBackend{}, Root: "generated"}}, []*gen.Resolved{r})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range tree.Files(0) {
		fmt.Println(f.Path)
		if strings.HasSuffix(f.Path, "enums.gen.go") {
			for _, line := range strings.Split(string(f.Content), "\n") {
				if strings.Contains(line, "OrderState = ") {
					fmt.Println("\t" + strings.TrimSpace(line))
				}
			}
		}
	}
	// Output:
	// shop/codec.gen.go
	// shop/doc.gen.go
	// shop/enums.gen.go
	// 	OrderStateOpen    OrderState = "open"
	// 	OrderStateShipped OrderState = "shipped"
}

// Validation reports every problem at once, each at its position, as an
// ErrorList; jobgen check prints one per line.
func ExampleParseFS_errors() {
	_, err := gen.ParseFS(fstest.MapFS{}, "spec/shop.yaml", []byte(`jobgen: 1
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
