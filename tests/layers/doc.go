// Package layers holds the test that states the layers of the module and fails on an import
// against them (TestLayers), so that the build, not a review, keeps the arrows pointing down.
// There is no library code here.
package layers
