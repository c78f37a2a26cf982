package io.paimongov.tck;

import io.paimongov.allocator.support.LeakReport;
import io.paimongov.allocator.support.PagedAllocator;

/**
 * Providers the kit's tests of its messages run: each breaks a rule in a way that shows one part of
 * a failure message (what the runner adds when a rule's cleanup fails too). Not in {@link
 * BrokenProviders#FAULTS}: the rules they fail have broken providers of their own.
 */
final class MessageProviders {

    private MessageProviders() {}

    /**
     * Its books count one byte more than it holds, so MEM-1's accounting check fails; and closing
     * it then throws, as a provider's leak check does when its books say memory is still held. The
     * failure of the check is the verdict; the close's is a cleanup failure after it.
     */
    public static final class BooksOffAndLeakAtClose extends ReferenceProvider {
        static final String LEAK = "books-off allocator closed with 1 byte still held";

        @Override
        public String name() {
            return "broken-books-and-leak";
        }

        @Override
        PagedAllocator<?> allocator(int pageSize, long capacity, Engine engine) {
            return new Allocator(pageSize, capacity, engine) {
                @Override
                public long usedBytes() {
                    return super.usedBytes() + 1;
                }

                @Override
                protected IllegalStateException closeEngine(LeakReport leak) {
                    return new IllegalStateException(LEAK);
                }
            };
        }
    }
}
