package pages

// SetSeekStep sets the distance between remembered list places until the
// returned function restores it.
func SetSeekStep(n int) (restore func()) {
	prev := seekStep
	seekStep = n
	return func() { seekStep = prev }
}
