package entries

// SetSeekStep sets the distance between remembered list places until the
// returned function restores it.
func SetSeekStep(n int) (restore func()) {
	prev := seekStep
	seekStep = n
	return func() { seekStep = prev }
}

// SetEmptyBatch sets how many entries one transaction of EmptyChannel
// deletes until the returned function restores it.
func SetEmptyBatch(n int) (restore func()) {
	prev := emptyBatch
	emptyBatch = n
	return func() { emptyBatch = prev }
}

// DerivedOptionID is derivedOptionID.
var DerivedOptionID = derivedOptionID
