<?php

declare(strict_types=1);

namespace DistLock\OpenTelemetry\Tests;

use OpenTelemetry\API\Trace\StatusCode;
use OpenTelemetry\SDK\Trace\SpanDataInterface;

/**
 * A real deadlock (two processes, two mutexes taken in opposite orders): the
 * wait that closes the cycle, this process's, is refused at once with
 * \DistLock\DeadlockException, and recorded as outcome deadlock, an error.
 */
final class DeadlockTest extends TelemetryTestCase
{
    public function testARefusedWaitIsOutcomeDeadlockWithStatusError(): void
    {
        $this->instrument();
        $locks = $this->client();
        $a = self::lockName('deadlock-a');
        $b = self::lockName('deadlock-b');

        // The peer holds A; this process holds B; the peer waits for B; then this
        // process asks for A, which closes the cycle: this wait is the one refused.
        $cmd = [PHP_BINARY, '-d', 'extension=' . (getenv('DISTLOCK_SO') ?: 'distlock'), __DIR__ . '/deadlock-peer.php', $this->redis, $a, $b];
        $peer = proc_open($cmd, [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => STDERR], $pipes);
        self::assertIsResource($peer);
        try {
            self::assertSame("held\n", fgets($pipes[1]), 'the peer took A');
            $mine = $locks->lock($b, 30, 5);
            fwrite($pipes[0], "go\n");
            fflush($pipes[0]);
            self::assertSame("waiting\n", fgets($pipes[1]));
            $this->waitForABlockedClient();

            $t = hrtime(true);
            try {
                $locks->lock($a, 30, 10);
                self::fail('lock() of A was granted: the peer was refused instead, or no deadlock was found');
            } catch (\DistLock\DeadlockException $e) {
                $seconds = (hrtime(true) - $t) / 1e9;
            }
            self::assertLessThan(5.0, $seconds, 'refused when the wait is registered, not after waiting');
            self::assertStringContainsString('Deadlock detected', $e->getMessage());
            self::assertStringContainsString($a, $e->getMessage());
            self::assertStringContainsString($b, $e->getMessage());
            self::assertTrue($mine->release());
            self::assertSame("granted\n", fgets($pipes[1]), 'the peer got B once this process let go');
        } finally {
            fclose($pipes[0]);
            fclose($pipes[1]);
            proc_close($peer);
        }

        $refused = array_values(array_filter($this->spansNamed('distlock.acquire'),
            static fn (SpanDataInterface $s) => self::attributes($s)['distlock.outcome'] === 'deadlock'));
        self::assertCount(1, $refused, 'one acquire span with outcome deadlock');
        $attributes = self::attributes($refused[0]);
        self::assertSame('deadlock', $attributes['error.type']);
        self::assertSame(StatusCode::STATUS_ERROR, $refused[0]->getStatus()->getCode());
        self::assertNotSame('', $refused[0]->getStatus()->getDescription());

        $m = $this->collect();
        self::assertSame(1, self::point($m, 'distlock.lock.acquisitions', ['distlock.outcome' => 'deadlock'])->value);
        self::assertSame(1, self::point($m, 'db.client.operation.duration',
            ['db.operation.name' => 'distlock.acquire', 'error.type' => 'deadlock'])->count);
    }

    /**
     * Returns once a client of the test server is blocked (CLIENT LIST flags b: the
     * peer's wait, registered before it blocks), or after 5 s.
     */
    private function waitForABlockedClient(): void
    {
        $deadline = microtime(true) + 5.0;
        while (microtime(true) < $deadline) {
            $s = @stream_socket_client('tcp://' . (parse_url($this->redis, PHP_URL_HOST) ?: '127.0.0.1') . ':' . $this->port, $errno, $error, 1.0);
            if ($s === false) {
                break;
            }
            fwrite($s, "*2\r\n\$6\r\nCLIENT\r\n\$4\r\nLIST\r\n");
            $head = (string) fgets($s);
            $list = $head !== '' && $head[0] === '$' ? (string) stream_get_contents($s, (int) substr($head, 1)) : '';
            fclose($s);
            if (preg_match('/ flags=[A-Za-z]*b/', $list)) {
                usleep(20_000);

                return;
            }
            usleep(10_000);
        }
        usleep(500_000);
    }
}
