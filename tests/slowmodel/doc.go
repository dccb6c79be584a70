// Package slowmodel holds the interrupt tests of `backfill run` against a slow model (the LLM
// stub behind a delay): after the first SIGINT no new LLM request may start (requests in flight
// finish and are cached, exit 130); after a second SIGINT the requests in flight are cancelled
// at once, and the report still counts every request made, the cancelled ones included. There is
// no library code here.
package slowmodel
