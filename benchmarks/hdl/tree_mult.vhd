-- Tree multiplier p = a * b of a regular operand a (AW bits) and a parameter operand b (BW bits):
-- one partial-product row per bit of a (b AND a(i), shifted left by i), the AW rows summed pairwise
-- by a balanced tree of ripple adders (rows 2j and 2j+1 on the first level, their sums pairwise on
-- the next, an odd row passed up a level). Each adder is as wide as the product; synthesis removes
-- the constant low and high bits. No multiplication operator, so the front end's parameter-multiplier
-- rewrite does not apply: the mapper sees the adder tree as written. With TREE = false the product
-- is written as a * b instead (numeric_std), for the front end's rewrite into chunk products.
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;

entity tree_mult is
  generic (AW : positive := 8; BW : positive := 8; TREE : boolean := true);
  port (
    a : in  std_logic_vector(AW-1 downto 0);
    b : in  std_logic_vector(BW-1 downto 0); --PARAM
    p : out std_logic_vector(AW+BW-1 downto 0)
  );
end entity;

architecture rtl of tree_mult is
  subtype word_t is unsigned(AW+BW-1 downto 0);
  type words_t is array (0 to AW-1) of word_t;
begin
  star : if not TREE generate
    p <= std_logic_vector(unsigned(a) * unsigned(b));
  end generate;

  tree_sum : if TREE generate
    process (a, b)
      variable w : words_t;
      variable n : natural;
    begin
      for i in 0 to AW-1 loop
        w(i) := (others => '0');
        if a(i) = '1' then
          w(i)(BW-1+i downto i) := unsigned(b);
        end if;
      end loop;
      n := AW;                              -- rows left on the current level
      while n > 1 loop
        for j in 0 to n/2 - 1 loop
          w(j) := w(2*j) + w(2*j+1);
        end loop;
        if n mod 2 = 1 then
          w(n/2) := w(n-1);
        end if;
        n := (n + 1) / 2;
      end loop;
      p <= std_logic_vector(w(0));
    end process;
  end generate;
end architecture;
