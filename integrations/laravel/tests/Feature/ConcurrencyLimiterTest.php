<?php

namespace DistLock\Laravel\Tests\Feature;

use DistLock\Laravel\Concurrency;
use DistLock\Laravel\InvalidConfigurationException;
use DistLock\Laravel\Limiters\ConcurrencyLimiter;
use Illuminate\Contracts\Redis\LimiterTimeoutException;
use Illuminate\Support\Facades\Redis;

/** Concurrency::funnel() and the ConcurrencyLimiter over distlock's semaphore. */
class ConcurrencyLimiterTest extends AppTestCase
{
    public function testEightProcessesNeverRunMoreThanTheLimitAtOnce(): void
    {
        Redis::del('dltest:funnel-holders');
        $procs = [];
        for ($i = 0; $i < 8; $i++) {
            $procs[] = $this->startArtisan(['dltest:funnel', '40', '2']);
        }
        foreach ($procs as $p) {
            [$rc, $out, $err] = $this->finish($p);
            $this->assertSame(0, $rc, "$out\n$err");
            $this->assertSame('over 0', $out);
        }
        $this->assertSame(['holders' => 0, 'used' => 0], app(\DistLock::class)->permits('dltest-funnel'));
    }

    public function testAWaiterIsWokenByTheReleaseWithoutPolling(): void
    {
        $holder = $this->startArtisan(['dltest:funnel-hold', '1.5']);
        $this->assertSame('held', trim((string) fgets($holder[1][1])));
        // warm the connection and the script cache, so that only the wait is counted
        Concurrency::funnel('dltest-warm')->limit(1)->then(fn () => null);

        $raw = $this->raw();
        $before = (int) $raw->info('stats')['total_reads_processed'];
        $acquiredNs = Concurrency::funnel('dltest-hold')->limit(1)->block(10)->then(fn () => hrtime(true));
        $after = (int) $raw->info('stats')['total_reads_processed'];

        [$rc, $out] = $this->finish($holder);
        $this->assertSame(0, $rc);
        $this->assertMatchesRegularExpression('/^releasing \d+$/', $out);
        $releasingNs = (int) substr($out, 10);
        $this->assertGreaterThan($releasingNs, $acquiredNs, 'not before the holder let go');
        $this->assertLessThan(1.0, ($acquiredNs - $releasingNs) / 1e9, 'woken by the release');
        // the attempt, the blocking pop, the attempt after the wake-up, our release, the
        // holder's release and this INFO: about 6; Laravel's funnel tries every 250 ms
        $this->assertLessThanOrEqual(10, $after - $before, 'requests served while waiting');
    }

    public function testFailureCallbackTimeoutAndJobMiddleware(): void
    {
        // hold the only slot (no callback: the permit is kept until its lease ends)
        $this->assertTrue((new ConcurrencyLimiter(app(\DistLock::class), 'dltest-mw', 1, 30))->block(0));

        $failed = Concurrency::funnel('dltest-mw')->limit(1)->block(0)
            ->then(fn () => 'ran', fn ($e) => 'failed: ' . get_class($e));
        $this->assertSame('failed: ' . LimiterTimeoutException::class, $failed);

        // a job middleware in the style of Laravel's docs: the job is released back when full
        $job = new class {
            public ?int $releasedWith = null;
            public function release(int $delay): void { $this->releasedWith = $delay; }
        };
        $middleware = new class {
            public function handle($job, callable $next)
            {
                return Concurrency::funnel('dltest-mw')->limit(1)->block(0.2)
                    ->then(fn () => $next($job), fn () => $job->release(10));
            }
        };
        $t0 = microtime(true);
        $middleware->handle($job, fn () => $this->fail('ran beside the holder'));
        $this->assertSame(10, $job->releasedWith);
        $this->assertGreaterThan(0.15, microtime(true) - $t0, 'it waited its block time');

        try {
            Concurrency::funnel('dltest-mw')->limit(1)->block(0)->then(fn () => null);
            $this->fail('no LimiterTimeoutException without a failure callback');
        } catch (LimiterTimeoutException $e) {
            $this->assertStringContainsString('"dltest-mw"', $e->getMessage());
        }
        app(\DistLock::class)->forceRelease('dltest-mw');
    }

    public function testTheLimiterRunsOnALaravelRedisConnectionsServerDatabaseAndPrefix(): void
    {
        $conn = Redis::connection();
        $prefix = (string) config('database.redis.options.prefix');
        (new ConcurrencyLimiter($conn, 'dltest-conn', 2, 30))->block(0);
        $raw = $this->raw();
        // one holder of one permit: the semaphore's key holds it (docs/primitives.md)
        $this->assertSame(1, $raw->exists($prefix . 'dltest-conn'), 'the semaphore is in the connection\'s database, under its prefix');
        $raw->del($prefix . 'dltest-conn', $prefix . 'dltest-conn{' . $prefix . 'dltest-conn}:permits');
    }

    public function testErrors(): void
    {
        foreach ([[0, 10, '$maxLocks'], [2, 0, '$releaseAfter']] as [$max, $after, $arg]) {
            try {
                new ConcurrencyLimiter(app(\DistLock::class), 'x', $max, $after);
                $this->fail("$arg was accepted");
            } catch (\ValueError $e) {
                $this->assertStringContainsString($arg, $e->getMessage());
            }
        }
        try {
            new ConcurrencyLimiter(new \stdClass(), 'x', 1, 10);
            $this->fail('a stdClass was taken for a connection');
        } catch (InvalidConfigurationException $e) {
            $this->assertStringContainsString('stdClass', $e->getMessage());
        }
        try {
            Concurrency::funnel('x', new \DistLock(['redis://127.0.0.1:1', 'redis://127.0.0.1:2', 'redis://127.0.0.1:3']))->then(fn () => null);
            $this->fail('a Redlock client took a permit');
        } catch (\ValueError $e) {
            $this->assertStringContainsString('not offered on Redlock', $e->getMessage());
        }
    }
}
