// Upcasters of the kitchen vocabulary's older facts.

//go:build jobgen

package kitchen

// upcastServedLateV1 reads order.served-late v1, which did not record how
// late the order was.
func upcastServedLateV1(old OrderServedLateV1) (OrderServedLate, error) {
	return OrderServedLate{Order: old.Order}, nil
}
