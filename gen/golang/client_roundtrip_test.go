package golang

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/jobgen/jobgen/gen/gentest"
)

// TestTheClientCallsTheHandlerOfTheSameSpec runs the http-routes case's
// generated Client against its generated NewHandler, serving a Server of
// the test's: every kind of route (files, a JSON answer with a with
// record and typed query parameters, a body, a resumable union stream
// with an end, a stream of two named events, media with typed headers, an
// optional body) goes from one side to the other and back, and a refusal
// comes back with the spec's own refusal record's message.
func TestTheClientCallsTheHandlerOfTheSameSpec(t *testing.T) {
	goBin, scratch := goldenModule(t)
	gentest.WriteFile(t, filepath.Join(scratch, "http-routes", "shop", "roundtrip_test.go"), []byte(shopRoundTrip))
	cmd := exec.Command(goBin, "test", "-count=1", "./http-routes/shop/")
	cmd.Dir = scratch
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the shop's client against its handler: %v\n%s", err, out)
	}
}

// shopRoundTrip is the test run in the shop package.
const shopRoundTrip = `package shop

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/fstest"

	"github.com/jobgen/jobgen/httproute"
)

type shop struct{ order Order }

func (s *shop) Home(ctx context.Context, req HomeRequest) (fs.FS, error) {
	return fstest.MapFS{"index.html": {Data: []byte("<p>shop</p>")}, "b.css": {Data: []byte("p{}")}}, nil
}

func (s *shop) ListOrders(ctx context.Context, req ListOrdersRequest) ([]httproute.With[Order, Where], error) {
	if req.Shelf != "top" || req.Size == nil || *req.Size != SizeLarge || req.Limit == nil || *req.Limit != 7 {
		return nil, httproute.Refuse(http.StatusBadRequest, "unexpected query")
	}
	return []httproute.With[Order, Where]{{Item: s.order, Extra: Where{Branch: "north"}}}, nil
}

func (s *shop) PlaceOrder(ctx context.Context, req PlaceOrderRequest) (Order, error) {
	if req.Body.Note == "closed" {
		return Order{}, httproute.Refuse(http.StatusConflict, "the kitchen is closed")
	}
	return Order{ID: s.order.ID, Size: req.Body.Size, Note: req.Body.Note}, nil
}

func (s *shop) WatchOrder(ctx context.Context, req WatchOrderRequest, stream WatchOrderStream) error {
	if req.ID != s.order.ID {
		return httproute.Refuse(http.StatusNotFound, "no such order")
	}
	if req.After == nil || *req.After != 3 {
		return httproute.Refuse(http.StatusBadRequest, "want after=3")
	}
	for _, p := range []Progress{Started{At: 4}, Cooked{Seq: 5, What: "soup"}, Served{}, Cooked{Seq: 6, What: "never read"}} {
		if err := stream.Send(p); err != nil {
			return err
		}
	}
	<-ctx.Done()
	return nil
}

func (s *shop) WatchCounts(ctx context.Context, req WatchCountsRequest, stream WatchCountsStream) error {
	if err := stream.SendCount(2); err != nil {
		return err
	}
	if err := stream.SendOrderList([]httproute.With[Order, Where]{{Item: s.order}}); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}

func (s *shop) Receipt(ctx context.Context, req ReceiptRequest) (ReceiptResponse, error) {
	return ReceiptResponse{Body: []byte("soup 350\n"), XTotalCents: 350, ContentDisposition: "attachment"}, nil
}

func (s *shop) Cancel(ctx context.Context, req CancelRequest) (Order, error) {
	return Order{ID: req.ID, Size: SizeSmall, Note: "cancelled " + req.Body.Note}, nil
}

func TestRoundTrip(t *testing.T) {
	ctx := t.Context()
	s := &shop{order: Order{ID: NewOrderID(), Size: SizeLarge}}
	srv := httptest.NewServer(NewHandler(s))
	defer srv.Close()
	c, err := NewClient(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if page, err := c.Home(ctx, HomeRequest{}, ""); err != nil || string(page) != "<p>shop</p>" {
		t.Errorf("Home = %q, %v", page, err)
	}
	if css, err := c.Home(ctx, HomeRequest{}, "b.css"); err != nil || string(css) != "p{}" {
		t.Errorf("Home b.css = %q, %v", css, err)
	}
	size, limit := SizeLarge, uint16(7)
	orders, err := c.ListOrders(ctx, ListOrdersRequest{Size: &size, Limit: &limit, Shelf: "top"})
	if err != nil || len(orders) != 1 || orders[0].Item.ID != s.order.ID || orders[0].Extra.Branch != "north" {
		t.Errorf("ListOrders = %+v, %v", orders, err)
	}
	var refused *httproute.WireError
	if _, err := c.ListOrders(ctx, ListOrdersRequest{Shelf: "top"}); !errors.As(err, &refused) || refused.Status != 400 || refused.Message != "unexpected query" {
		t.Errorf("ListOrders without the optional query: %v", err)
	}
	if o, err := c.PlaceOrder(ctx, PlaceOrderRequest{Body: PlaceOrder{Size: SizeSmall, Note: "hot"}}); err != nil || o.Size != SizeSmall || o.Note != "hot" {
		t.Errorf("PlaceOrder = %+v, %v", o, err)
	}
	if _, err := c.PlaceOrder(ctx, PlaceOrderRequest{Body: PlaceOrder{Size: SizeSmall, Note: "closed"}}); !errors.As(err, &refused) || refused.Status != 409 || refused.Message != "the kitchen is closed" {
		t.Errorf("PlaceOrder when closed: %v", err)
	}
	after := int64(3)
	var got []Progress
	for p, err := range c.WatchOrder(ctx, WatchOrderRequest{ID: s.order.ID, After: &after}) {
		if err != nil {
			t.Fatalf("WatchOrder: %v", err)
		}
		got = append(got, p)
	}
	if len(got) != 3 || got[1] != (Cooked{Seq: 5, What: "soup"}) || got[2] != (Served{}) {
		t.Errorf("WatchOrder = %+v, want it to end after Served", got)
	}
	for _, err := range c.WatchOrder(ctx, WatchOrderRequest{ID: NewOrderID(), After: &after}) {
		if !errors.As(err, &refused) || refused.Status != 404 || refused.Message != "no such order" {
			t.Errorf("WatchOrder of no order: %v", err)
		}
	}
	var counts []WatchCountsReceived
	for ev, err := range c.WatchCounts(ctx, WatchCountsRequest{}) {
		if err != nil {
			t.Fatalf("WatchCounts: %v", err)
		}
		if counts = append(counts, ev); len(counts) == 2 {
			break
		}
	}
	if len(counts) != 2 || counts[0].Name != "count" || *counts[0].Count != 2 || counts[1].OrderList == nil || (*counts[1].OrderList)[0].Item.ID != s.order.ID {
		t.Errorf("WatchCounts = %+v", counts)
	}
	if r, err := c.Receipt(ctx, ReceiptRequest{ID: s.order.ID}); err != nil || string(r.Body) != "soup 350\n" || r.XTotalCents != 350 || r.ContentDisposition != "attachment" {
		t.Errorf("Receipt = %+v, %v", r, err)
	}
	if o, err := c.Cancel(ctx, CancelRequest{ID: s.order.ID}); err != nil || o.ID != s.order.ID || o.Note != "cancelled " {
		t.Errorf("Cancel = %+v, %v", o, err)
	}
}
`
