<?php

declare(strict_types=1);

namespace DistLock\OpenTelemetry\Tests;

use OpenTelemetry\API\Common\Time\Clock;
use OpenTelemetry\API\Trace\SpanKind;
use OpenTelemetry\API\Trace\StatusCode;

/** Spans of real lock operations on the test server. */
final class SpansTest extends TelemetryTestCase
{
    /**
     * The tree: a request span holding the acquire (with its wait, another
     * process holding the lock) and the release, with their times.
     */
    public function testRequestSpanContainsAcquireWithItsWaitAndRelease(): void
    {
        $this->instrument();
        $locks = $this->client();
        $name = self::lockName('report');
        $holder = $this->holdElsewhere($name, 0.4);

        $tracer = $this->tracerProvider->getTracer('test');
        $request = $tracer->spanBuilder('GET /report')->setSpanKind(SpanKind::KIND_SERVER)->startSpan();
        $scope = $request->activate();
        try {
            $before = Clock::getDefault()->now();
            $lock = $locks->lock($name, 10, 5);
            $afterAcquire = Clock::getDefault()->now();
            usleep(50_000);
            self::assertTrue($lock->release());
        } finally {
            $scope->detach();
            $request->end();
            proc_close($holder);
        }

        $req = $this->onlySpan('GET /report');
        $acquire = $this->onlySpan('distlock.acquire');
        $wait = $this->onlySpan('distlock.wait');
        $release = $this->onlySpan('distlock.release');

        // One trace; the acquire and the release are children of the request
        // span, the wait is a child of the acquire.
        foreach ([$acquire, $wait, $release] as $s) {
            self::assertSame($req->getTraceId(), $s->getTraceId());
        }
        self::assertSame($req->getSpanId(), $acquire->getParentSpanId());
        self::assertSame($req->getSpanId(), $release->getParentSpanId());
        self::assertSame($acquire->getSpanId(), $wait->getParentSpanId());
        self::assertSame(SpanKind::KIND_CLIENT, $acquire->getKind());
        self::assertSame(SpanKind::KIND_CLIENT, $release->getKind());
        self::assertSame(SpanKind::KIND_INTERNAL, $wait->getKind());

        // The acquire's times are the call's (epoch ns, 5 ms of slack for the
        // offset and the observer's own run); the wait lies inside it; the
        // release follows the acquire; all inside the request.
        self::assertGreaterThanOrEqual($before - 5_000_000, $acquire->getStartEpochNanos());
        self::assertLessThanOrEqual($afterAcquire + 5_000_000, $acquire->getEndEpochNanos());
        self::assertGreaterThanOrEqual($acquire->getStartEpochNanos(), $wait->getStartEpochNanos());
        self::assertLessThanOrEqual($acquire->getEndEpochNanos(), $wait->getEndEpochNanos());
        self::assertGreaterThanOrEqual($acquire->getEndEpochNanos(), $release->getStartEpochNanos());
        self::assertGreaterThanOrEqual($req->getStartEpochNanos(), $acquire->getStartEpochNanos());
        self::assertLessThanOrEqual($req->getEndEpochNanos(), $release->getEndEpochNanos());

        // The holder kept it 0.4 s: the acquire waited most of that, and the
        // wait span is as long as the wait attribute says.
        $a = self::attributes($acquire);
        self::assertGreaterThan(0.15, $a['distlock.wait.duration']);
        self::assertLessThan(5.0, $a['distlock.wait.duration']);
        $waitNs = $wait->getEndEpochNanos() - $wait->getStartEpochNanos();
        self::assertEqualsWithDelta($a['distlock.wait.duration'], $waitNs / 1e9, 0.001);
        self::assertGreaterThanOrEqual($waitNs, $acquire->getEndEpochNanos() - $acquire->getStartEpochNanos());
    }

    /** The database conventions' attributes and the distlock.* ones, on a fenced grant and its release. */
    public function testAttributesOfAcquireAndRelease(): void
    {
        $this->instrument();
        $locks = $this->client(['fencing' => true]);
        $lock = $locks->lock(self::lockName('invoice'), 7.5, 1);
        $token = $lock->fencingToken();
        self::assertIsInt($token);
        usleep(60_000);
        self::assertTrue($lock->release());

        $a = self::attributes($this->onlySpan('distlock.acquire'));
        self::assertSame('redis', $a['db.system.name']);
        self::assertSame('distlock.acquire', $a['db.operation.name']);
        self::assertSame('127.0.0.1', $a['server.address']);
        self::assertSame($this->port, $a['server.port']);
        self::assertSame('mutex', $a['distlock.lock.kind']);
        self::assertSame('acquired', $a['distlock.outcome']);
        self::assertSame($token, $a['distlock.fencing_token']);
        self::assertEqualsWithDelta(7.5, $a['distlock.ttl'], 1e-9);
        self::assertSame(0.0, $a['distlock.wait.duration']);
        self::assertGreaterThanOrEqual(1, $a['distlock.round_trips']);
        self::assertArrayNotHasKey('error.type', $a);
        self::assertSame([], $this->spansNamed('distlock.wait'), 'no wait span when it did not wait');

        $release = $this->onlySpan('distlock.release');
        $r = self::attributes($release);
        self::assertSame('distlock.release', $r['db.operation.name']);
        self::assertSame('released', $r['distlock.outcome']);
        self::assertFalse($r['distlock.implicit']);
        self::assertGreaterThan(0.05, $r['distlock.hold.duration']);
        self::assertLessThan(5.0, $r['distlock.hold.duration']);
        self::assertSame(StatusCode::STATUS_UNSET, $release->getStatus()->getCode());
    }

    /**
     * A release by destruction is reported after the fact, with implicit =
     * true and its own time (not the time it was reported).
     */
    public function testImplicitReleaseIsMarkedAndKeepsItsTime(): void
    {
        $this->instrument();
        $locks = $this->client();
        $name = self::lockName('scoped');
        $lock = $locks->lock($name, 5, 1);
        $beforeUnset = Clock::getDefault()->now();
        unset($lock);
        $afterUnset = Clock::getDefault()->now();
        usleep(200_000);
        $locks->isLocked($name); // the next command: reads the deferred release's reply, reports it at its end

        $release = $this->onlySpan('distlock.release');
        self::assertTrue(self::attributes($release)['distlock.implicit']);
        self::assertSame('released', self::attributes($release)['distlock.outcome']);
        self::assertGreaterThanOrEqual($beforeUnset - 5_000_000, $release->getStartEpochNanos());
        self::assertLessThan($afterUnset + 100_000_000, $release->getStartEpochNanos(), 'the span starts when the release was sent, not 200 ms later');
    }

    /**
     * The watchdog: its renewals are CLIENT spans (reported at the next
     * distlock call); a lease taken away under it is a distlock.lost span
     * with status ERROR, and counted once.
     */
    public function testWatchdogRenewalsAndALostLease(): void
    {
        $this->instrument();
        $locks = $this->client(['watchdog' => true]);
        $name = self::lockName('watched');
        $lock = $locks->lock($name, 0.3, 1);
        usleep(500_000); // renewals every ttl/3
        $locks->isLocked(self::lockName('other'));

        $renewals = $this->spansNamed('distlock.renewal');
        self::assertNotEmpty($renewals, 'renewals in 0.5 s of a 0.3 s lease; spans: ' . implode(', ', $this->spanNames()));
        $r = self::attributes($renewals[0]);
        self::assertSame(SpanKind::KIND_CLIENT, $renewals[0]->getKind());
        self::assertSame('refreshed', $r['distlock.outcome']);
        self::assertSame('distlock.renewal', $r['db.operation.name']);
        self::assertSame('mutex', $r['distlock.lock.kind']);
        self::assertEqualsWithDelta(0.3, $r['distlock.ttl'], 1e-9);
        self::assertTrue($lock->isAcquired(), 'the watchdog kept the lease past its ttl');

        $this->client()->forceRelease($name);
        usleep(500_000);
        $locks->isLocked(self::lockName('other'));
        $lost = $this->onlySpan('distlock.lost');
        self::assertSame(SpanKind::KIND_INTERNAL, $lost->getKind());
        self::assertSame(StatusCode::STATUS_ERROR, $lost->getStatus()->getCode());
        self::assertSame('lost', self::attributes($lost)['distlock.outcome']);
        self::assertArrayNotHasKey('db.operation.name', self::attributes($lost), 'nothing was sent for it');
        self::assertFalse($lock->release());
        self::assertSame(StatusCode::STATUS_ERROR, $this->onlySpan('distlock.release')->getStatus()->getCode());

        // One lease lost: counted once, as found by the watchdog, though the
        // renewal that found it and the release also said 'lost'.
        $m = $this->collect();
        $points = self::points($m, 'distlock.lock.lost');
        self::assertCount(1, $points, json_encode(array_map(static fn ($p) => [$p[0], $p[1]->value], $points)));
        self::assertSame('lost', $points[0][0]['distlock.operation']);
        self::assertSame(1, $points[0][1]->value);
        $hold = self::point($m, 'distlock.lock.hold.duration', ['distlock.outcome' => 'lost']);
        self::assertSame(1, $hold->count);
        self::assertGreaterThan(0.4, $hold->sum, 'held from the grant to the loss found');
    }

    /** With no active span, each operation is the root of its own trace. */
    public function testWithoutAnActiveSpanTheSpansAreRoots(): void
    {
        $this->instrument();
        $this->client()->lock(self::lockName('root'), 5, 1)->release();
        foreach (['distlock.acquire', 'distlock.release'] as $n) {
            self::assertFalse($this->onlySpan($n)->getParentContext()->isValid(), "$n has no parent");
        }
    }

    /** A wait that runs out: outcome timeout, not an error status. */
    public function testTimeout(): void
    {
        $this->instrument();
        $name = self::lockName('busy');
        $holder = $this->holdElsewhere($name, 1.0);
        try {
            $this->client()->lock($name, 5, 0.2);
            self::fail('lock() returned while another process held the lock');
        } catch (\DistLock\LockTimeoutException) {
        } finally {
            proc_close($holder);
        }
        $acquire = $this->onlySpan('distlock.acquire');
        $a = self::attributes($acquire);
        self::assertSame('timeout', $a['distlock.outcome']);
        self::assertGreaterThan(0.1, $a['distlock.wait.duration']);
        self::assertSame(StatusCode::STATUS_UNSET, $acquire->getStatus()->getCode());
        self::assertCount(1, $this->spansNamed('distlock.wait'));
    }

    /** The try form on a held name: outcome conflict. */
    public function testConflict(): void
    {
        $this->instrument();
        $name = self::lockName('held');
        $holder = $this->holdElsewhere($name, 0.5);
        try {
            self::assertNull($this->client()->tryLock($name, 5));
        } finally {
            proc_close($holder);
        }
        $a = self::attributes($this->onlySpan('distlock.acquire'));
        self::assertSame('conflict', $a['distlock.outcome']);
        self::assertSame(0.0, $a['distlock.wait.duration']);
    }

    /** A lease that ran out before its release: the release's outcome is lost, status ERROR. */
    public function testLostLeaseOnRelease(): void
    {
        $this->instrument();
        $lock = $this->client()->lock(self::lockName('short'), 0.15, 1);
        usleep(400_000);
        self::assertFalse($lock->release());

        $release = $this->onlySpan('distlock.release');
        $r = self::attributes($release);
        self::assertSame('lost', $r['distlock.outcome']);
        self::assertSame('lost', $r['error.type']);
        self::assertSame(StatusCode::STATUS_ERROR, $release->getStatus()->getCode());
        self::assertNotSame('', $release->getStatus()->getDescription());
    }

    /** A name held under another kind: outcome wrong_kind, status ERROR. */
    public function testWrongKind(): void
    {
        $this->instrument();
        $locks = $this->client();
        $name = self::lockName('catalogue');
        $shared = $locks->lockShared($name, 5, 1);
        try {
            $this->client()->lock($name, 5, 1);
            self::fail('lock() on a name held shared did not throw');
        } catch (\DistLock\LockKindException) {
        } finally {
            $shared->release();
        }
        $acquire = $this->spansNamed('distlock.acquire')[1];
        $a = self::attributes($acquire);
        self::assertSame('mutex', $a['distlock.lock.kind']);
        self::assertSame('wrong_kind', $a['distlock.outcome']);
        self::assertSame('wrong_kind', $a['error.type']);
        self::assertSame(StatusCode::STATUS_ERROR, $acquire->getStatus()->getCode());
        self::assertSame('the name is held under another kind', $acquire->getStatus()->getDescription());
    }

    /** A refresh of a held lease is a CLIENT span too. */
    public function testRefresh(): void
    {
        $this->instrument();
        $lock = $this->client()->lock(self::lockName('long'), 5, 1);
        self::assertTrue($lock->refresh(9));
        $lock->release();
        $refresh = $this->onlySpan('distlock.refresh');
        $r = self::attributes($refresh);
        self::assertSame(SpanKind::KIND_CLIENT, $refresh->getKind());
        self::assertSame('refreshed', $r['distlock.outcome']);
        self::assertSame('distlock.refresh', $r['db.operation.name']);
        self::assertEqualsWithDelta(9.0, $r['distlock.ttl'], 1e-9);
    }

    /**
     * A server that is not there: outcome error, status ERROR with the
     * exception's message, and the password of the URI nowhere.
     */
    public function testConnectionErrorSetsErrorStatusWithoutThePassword(): void
    {
        $this->instrument();
        $port = self::closedPort();
        $locks = new \DistLock("redis://user:s3cr3t-pw@127.0.0.1:$port", ['connect_timeout' => 0.5]);
        try {
            $locks->lock(self::lockName('down'), 5, 0.5);
            self::fail('lock() on a closed port did not throw');
        } catch (\DistLock\ConnectionException $e) {
        }
        $acquire = $this->onlySpan('distlock.acquire');
        $a = self::attributes($acquire);
        self::assertSame('error', $a['distlock.outcome']);
        self::assertSame('error', $a['error.type']);
        self::assertSame(StatusCode::STATUS_ERROR, $acquire->getStatus()->getCode());
        self::assertSame($e->getMessage(), $acquire->getStatus()->getDescription());
        self::assertStringNotContainsString('s3cr3t-pw', serialize([$a, $acquire->getStatus()->getDescription()]));
    }

    /** The other kinds: shared, exclusive, permits (with their count), multi. */
    public function testKinds(): void
    {
        $this->instrument(['lock_names' => 'spans']);
        $locks = $this->client();
        $locks->lockShared($n1 = self::lockName('catalogue'), 5, 1)->release();
        $locks->lockExclusive($n1, 5, 1)->release();
        $locks->acquirePermits($n2 = self::lockName('pdf'), 4, 2, 5, 1)->release();
        [$x, $y] = $locks->lockAll([$a = self::lockName('account'), $b = self::lockName('account')], 5, 1);
        $locks->releaseAll([$x, $y]);

        $acquires = array_map(self::attributes(...), $this->spansNamed('distlock.acquire'));
        self::assertSame(['shared', 'exclusive', 'permits', 'multi'], array_column($acquires, 'distlock.lock.kind'));
        self::assertSame(2, $acquires[2]['distlock.permits']);
        self::assertSame([$a, $b], $acquires[3]['distlock.lock.names']);
        self::assertSame($a, $acquires[3]['distlock.lock.name']);
        self::assertSame($n2, $acquires[2]['distlock.lock.name']);
    }

    /** After unregister(), operations record nothing. */
    public function testUnregister(): void
    {
        $registration = $this->instrument();
        self::assertTrue($registration->unregister());
        self::assertFalse($registration->unregister());
        $this->client()->lock(self::lockName('quiet'), 5, 1)->release();
        self::assertSame([], $this->spans->getSpans());
    }

    /** traces => false: metrics only. */
    public function testTracesOff(): void
    {
        $this->instrument(['traces' => false]);
        $this->client()->lock(self::lockName('m'), 5, 1)->release();
        self::assertSame([], $this->spans->getSpans());
        self::assertArrayHasKey('distlock.lock.acquisitions', $this->collect());
    }

    private static function closedPort(): int
    {
        $s = stream_socket_server('tcp://127.0.0.1:0');
        $port = (int) substr(strrchr(stream_socket_get_name($s, false), ':'), 1);
        fclose($s);

        return $port;
    }
}
