package pages

// The stored form of version snapshots, for tests of the format.
var (
	EncodeVersionDoc   = encodeVersionDoc
	DecodeVersionDoc   = decodeVersionDoc
	EncodeVersionDelta = encodeVersionDelta
	ChainDoc           = chainDoc
)

// VersionChainMax is the most versions a chain holds.
const VersionChainMax = versionChainMax
