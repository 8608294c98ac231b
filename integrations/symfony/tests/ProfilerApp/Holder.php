<?php

declare(strict_types=1);

namespace DistLock\Symfony\Tests\ProfilerApp;

/**
 * A second PHP process (holder.php) that holds a lock for a moment, so that
 * the request under test waits for it. start() returns once it holds.
 */
final class Holder
{
    /** @param resource $process @param array<int, resource> $pipes */
    private function __construct(private $process, private array $pipes)
    {
    }

    /**
     * @param string $resource the symfony/lock resource to hold
     * @param float  $seconds  how long to hold it once held
     *
     * @throws \RuntimeException when the process does not report holding it within 10 s
     */
    public static function start(string $resource, float $seconds): self
    {
        $cmd = [PHP_BINARY, '-d', 'extension=' . getenv('DISTLOCK_SO'), __DIR__ . '/holder.php', $resource, (string) $seconds];
        $process = proc_open($cmd, [0 => ['pipe', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes);
        if (!\is_resource($process)) {
            throw new \RuntimeException('could not start holder.php');
        }
        $holder = new self($process, $pipes);
        stream_set_timeout($pipes[1], 10);
        $line = fgets($pipes[1]);
        if ($line !== "held\n") {
            $err = stream_get_contents($pipes[2]);
            $holder->close();
            throw new \RuntimeException('holder.php did not hold ' . $resource . ': ' . var_export($line, true) . ' ' . $err);
        }

        return $holder;
    }

    /** Waits for the process to end (it releases and exits by itself). */
    public function close(): void
    {
        foreach ($this->pipes as $p) {
            if (\is_resource($p)) {
                fclose($p);
            }
        }
        $this->pipes = [];
        if (\is_resource($this->process)) {
            proc_close($this->process);
        }
    }
}
