<?php

declare(strict_types=1);

namespace DistLock\Symfony\Tests\Symfony8;

use DistLock\Symfony\Tests\Support\Redis;
use PHPUnit\Framework\TestCase;
use Symfony\Component\Clock\MockClock;
use Symfony\Component\Console\Command\Command;
use Symfony\Component\Console\Command\LockableTrait;
use Symfony\Component\Console\Input\InputInterface;
use Symfony\Component\Console\Output\OutputInterface;
use Symfony\Component\Console\Tester\CommandTester;
use Symfony\Component\Lock\LockFactory;
use Symfony\Component\Scheduler\Generator\MessageGenerator;
use Symfony\Component\Scheduler\RecurringMessage;
use Symfony\Component\Scheduler\Schedule;

/**
 * What takes a lock through the store on Symfony 8 besides LockFactory's own
 * callers: Console's LockableTrait (a command given a LockFactory over
 * DistLockStore) and a Scheduler schedule with ->lock() (only the worker
 * holding the lock generates the schedule's messages). Both run on
 * symfony/console and symfony/scheduler 8.1 (tests/symfony/root.sh).
 */
final class ConsoleAndSchedulerTest extends TestCase
{
    protected function setUp(): void
    {
        Redis::deleteKeysStartingWith('sftest:');
    }

    public function testLockableTraitRunsTheCommandOnceAtATime(): void
    {
        $factory = new LockFactory(Redis::store());
        $tester = new CommandTester(new LockedCommand($factory));
        $other = (new LockFactory(Redis::store()))->createLock('app:locked', 30.0);
        $this->assertTrue($other->acquire());

        $this->assertSame(Command::FAILURE, $tester->execute([]));
        $this->assertStringContainsString('already running', $tester->getDisplay(), 'another process holds its lock');

        $other->release();
        $this->assertSame(Command::SUCCESS, $tester->execute([]));
        $this->assertStringContainsString('ran while the key was there: 1', $tester->getDisplay(), 'the command held sftest:app:locked');
        $this->assertSame(0, Redis::raw()->exists('sftest:app:locked'), 'released by the command');
    }

    public function testLockableTraitBlockingWaitsForTheHolder(): void
    {
        $tester = new CommandTester(new LockedCommand(new LockFactory(Redis::store()), blocking: true));
        $t = microtime(true);   // before the lease: it ends 1 s after it was taken, later than this
        $other = (new LockFactory(Redis::store([], 1.0)))->createLock('app:locked', 1.0, false);
        $this->assertTrue($other->acquire(), 'a 1 s lease, not renewed');
        $this->assertSame(Command::SUCCESS, $tester->execute([]));
        $waited = microtime(true) - $t;
        $this->assertGreaterThan(0.9, $waited, 'it waited for the lease to end');
        $this->assertLessThan(30.0, $waited);
    }

    public function testALockedScheduleIsGeneratedByTheWorkerHoldingTheLockOnly(): void
    {
        $clock = new MockClock();   // now: the triggers start at the real now
        $worker = fn () => new MessageGenerator(
            (new Schedule())->add(RecurringMessage::every('10 seconds', new \ArrayObject(['tick'])))
                ->lock((new LockFactory(Redis::store()))->createLock('schedule:default', 60.0)),
            'default',
            $clock,
        );
        [$a, $b] = [$worker(), $worker()];
        $this->assertSame([], iterator_to_array($a->getMessages(), false), 'nothing due at the start');
        $clock->sleep(11);
        $this->assertCount(1, iterator_to_array($a->getMessages(), false), 'a holds the lock: it generates');
        $this->assertSame(1, Redis::raw()->exists('sftest:schedule:default'), "the schedule's lock is a distlock key");
        $this->assertSame([], iterator_to_array($b->getMessages(), false), 'b does not hold it: nothing');
        $clock->sleep(10);
        $this->assertSame([], iterator_to_array($b->getMessages(), false), 'still not b');
        $this->assertCount(1, iterator_to_array($a->getMessages(), false), 'a again');
        Redis::raw()->del('sftest:schedule:default');   // a's lease gone (a worker that died)
        $clock->sleep(10);
        iterator_to_array($b->getMessages(), false);    // b takes the lock over (from this tick on)
        $this->assertSame(1, Redis::raw()->exists('sftest:schedule:default'));
        $clock->sleep(10);
        $this->assertSame([], iterator_to_array($a->getMessages(), false), 'a no longer generates');
        $this->assertCount(1, iterator_to_array($b->getMessages(), false), 'b does');
    }
}

/** A command that runs once at a time through LockableTrait, on the LockFactory it is given. */
final class LockedCommand extends Command
{
    use LockableTrait;

    public function __construct(LockFactory $factory, private bool $blocking = false)
    {
        $this->lockFactory = $factory;
        parent::__construct('app:locked');
    }

    protected function execute(InputInterface $input, OutputInterface $output): int
    {
        if (!$this->lock(null, $this->blocking)) {
            $output->writeln('The command is already running in another process.');
            return Command::FAILURE;
        }
        $output->writeln('ran while the key was there: ' . Redis::raw()->exists('sftest:app:locked'));
        $this->release();
        return Command::SUCCESS;
    }
}
