-- 32-tap FIR filter of 8-bit samples with 8-bit coefficients as parameter inputs, transposed form:
-- the registered sample x enters every tap's tree multiplier (tree_mult.vhd) at once, and stage k
-- adds product k-1 to the registered stage k-1, acc(k) <= acc(k-1) + coef(k-1) * x, acc(0) = 0; the
-- output is acc(TAPS). A W x W product has 2*W bits and the sum grows by at most one bit per stage,
-- so stage k is a 2*W+k-1 bit adder and register (2*W+TAPS-1 = 47 bits at the end); the array
-- holds every stage at the full width with the bits above zero. Coefficient k is bits
-- W*(k+1)-1 downto W*k of coefs. TREE = false: the products are written as x * coef (see
-- tree_mult.vhd).
library ieee;
use ieee.std_logic_1164.all;
use ieee.numeric_std.all;

entity fir_tree32 is
  generic (TAPS : positive := 32; W : positive := 8; TREE : boolean := true);
  port (
    clk   : in  std_logic;
    x     : in  std_logic_vector(W-1 downto 0);
    coefs : in  std_logic_vector(TAPS*W-1 downto 0); --PARAM
    y     : out std_logic_vector(2*W+TAPS-2 downto 0)
  );
end entity;

architecture rtl of fir_tree32 is
  constant ACCW : positive := 2*W + TAPS - 1;
  type acc_t is array (0 to TAPS) of unsigned(ACCW-1 downto 0);
  type prod_t is array (0 to TAPS-1) of std_logic_vector(2*W-1 downto 0);
  signal acc  : acc_t := (others => (others => '0'));
  signal prod : prod_t;
  signal xr   : std_logic_vector(W-1 downto 0) := (others => '0');
begin
  process (clk)
  begin
    if rising_edge(clk) then
      xr <= x;
    end if;
  end process;

  acc(0) <= (others => '0');

  stage : for k in 1 to TAPS generate
    mul : entity work.tree_mult
      generic map (AW => W, BW => W, TREE => TREE)
      port map (a => xr, b => coefs(W*k-1 downto W*(k-1)), p => prod(k-1));

    process (clk)
      constant WK : positive := 2*W + k - 1;     -- bits of stage k
    begin
      if rising_edge(clk) then
        acc(k) <= resize(resize(acc(k-1)(WK-2 downto 0), WK) + resize(unsigned(prod(k-1)), WK), ACCW);
      end if;
    end process;
  end generate;

  y <= std_logic_vector(acc(TAPS));
end architecture;
