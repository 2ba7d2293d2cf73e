//go:build jobgen

package demo

func upcastOpenedV1(old TaskOpenedV1) (TaskOpened, error) {
	return TaskOpened{ID: old.ID}, nil
}

// upcastClosedV1 forgets the error result.
func upcastClosedV1(old TaskClosedV1) TaskClosed {
	return TaskClosed{ID: old.ID}
}

// DecodeFact clashes with the generated codec.
func DecodeFact() {}
