package pages

// The stored form of version snapshots, for tests of the format.
var (
	EncodeVersionDoc = encodeVersionDoc
	DecodeVersionDoc = decodeVersionDoc
)
