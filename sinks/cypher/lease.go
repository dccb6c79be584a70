package cypher

// A lease is a LabelLease node per group being loaded (in the group's graph on FalkorDB), keyed
// by group and naming its holder: a random token per load, with the host, process id and job of
// the load for the error another load shows. Times are milliseconds of the database's clock
// (nowMillis), so the hosts' clocks do not matter. A lease is free when it has no holder or has
// expired; its holder renews it while the load runs and deletes it once the group is verified.
// Graphiti reads nodes by its own labels only, so it never sees a lease.

// nowMillis is the database's current time in milliseconds since the Unix epoch: timestamp() on
// Neo4j and FalkorDB, timestamp() / 1000 on Memgraph, whose timestamp() counts microseconds
// (its functions source: the query's start time in microseconds; not checked against a running
// server).
func nowMillis(d Dialect) string {
	if d == Memgraph {
		return "timestamp() / 1000"
	}
	return "timestamp()"
}

// TakeLeases takes the leases of $groups that are free or already the caller's ($holder), for
// $ttl milliseconds, recording $host, $pid and $job, and since when (kept when the caller held it
// already). Each row is (group, taken, holder, host, pid, job, since, milliseconds left): for a
// lease not taken, the other holder's. The lease node is write-locked before it is read (SET of
// a property on Neo4j), so two loads cannot both take it; MERGE is atomic by the lease
// constraint (Neo4j, Memgraph) or because FalkorDB runs a graph's queries one at a time.
func TakeLeases(d Dialect) string {
	now := nowMillis(d)
	return "UNWIND $groups AS g MERGE (l:" + LabelLease + " {group: g}) ON CREATE SET l.holder = '' " +
		"SET l._lock = true REMOVE l._lock " +
		"WITH l, g, " + now + " AS now " +
		"WITH l, g, now, l.holder = $holder AS mine, l.holder = $holder OR l.holder = '' OR l.expires < now AS free " +
		"SET l += CASE WHEN free THEN {holder: $holder, host: $host, pid: $pid, job: $job, expires: now + $ttl} ELSE {} END " +
		"SET l.since = CASE WHEN free AND NOT mine THEN now ELSE l.since END " +
		"RETURN g, free, l.holder, l.host, l.pid, l.job, l.since, l.expires - now"
}

// RenewLeases extends the caller's leases of $groups by $ttl milliseconds from now; it returns
// the groups renewed (a lease missing from the answer was lost: it expired and another load took
// it).
func RenewLeases(d Dialect) string {
	return "UNWIND $groups AS g MATCH (l:" + LabelLease + " {group: g}) WHERE l.holder = $holder SET l.expires = " +
		nowMillis(d) + " + $ttl RETURN g"
}

// ReleaseLeases deletes the caller's leases of $groups.
func ReleaseLeases(Dialect) string {
	return "UNWIND $groups AS g MATCH (l:" + LabelLease + " {group: g}) WHERE l.holder = $holder DELETE l"
}

// ExpireLeases ends the leases of $leases ({group, holder} maps) still held by that holder: a
// load found their holder's process gone (same host, no such pid), so they are free at once
// instead of after their TTL.
func ExpireLeases(Dialect) string {
	return "UNWIND $leases AS d MATCH (l:" + LabelLease + " {group: d.group}) WHERE l.holder = d.holder SET l.expires = 0"
}
